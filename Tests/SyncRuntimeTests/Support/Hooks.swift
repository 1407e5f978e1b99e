import Foundation
import SyncRuntime
import SyncRuntimeTesting
import SyncTestSupport

/// Sizes of the upserts a transport saw.
final class BatchSizes: @unchecked Sendable {
    private let lock = NSLock()
    private var sizes: [Int] = []

    func append(_ size: Int) { lock.withLock { sizes.append(size) } }
    var values: [Int] { lock.withLock { sizes } }
}

/// A late-bound reference for hooks that act on a device built after them.
final class StoreBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: SyncStore?
    private var used = false

    var store: SyncStore? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// True the first time only.
    func takeOnce() -> Bool {
        lock.withLock {
            defer { used = true }
            return !used
        }
    }
}

/// Rows each table's pulls returned, by table.
final class PulledSizes: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func add(_ count: Int, _ table: String) { lock.withLock { counts[table, default: 0] += count } }
    func clear() { lock.withLock { counts.removeAll() } }
    var rows: [String: Int] { lock.withLock { counts } }
}

/// A transport that counts the rows pulls return.
struct RecordingPulls: ForwardingTransport {
    let base: InMemoryServer
    let sizes: PulledSizes

    var forwardee: any SyncTransport { base }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        let page = try await base.pull(table, after: cursor, limit: limit, as: user)
        sizes.add(page.receivedCount, table.name)
        return page
    }
}
