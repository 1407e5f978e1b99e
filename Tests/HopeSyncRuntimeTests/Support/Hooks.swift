import Foundation
@_spi(Transport) import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting

/// Sizes of the upserts a transport saw.
final class BatchSizes: Sendable {
    private let sizes = Locked<[Int]>([])

    func append(_ size: Int) { sizes.withLock { $0.append(size) } }
    var values: [Int] { sizes.value }
}

/// A late-bound reference for hooks that act on a device built after them.
final class StoreBox: Sendable {
    private let stored = Locked<SyncStore?>(nil)
    private let used = Locked(false)

    var store: SyncStore? {
        get { stored.value }
        set { stored.value = newValue }
    }

    /// True the first time only.
    func takeOnce() -> Bool {
        used.withLock { used in
            defer { used = true }
            return !used
        }
    }
}

/// Rows each table's pulls returned, by table.
final class PulledSizes: Sendable {
    private let counts = Locked<[String: Int]>([:])

    func add(_ count: Int, _ table: String) { counts.withLock { $0[table, default: 0] += count } }
    func clear() { counts.withLock { $0.removeAll() } }
    var rows: [String: Int] { counts.value }
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

    func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        let answer = try await base.pull(cursors, since: mark, limit: limit, function: function, as: user)
        for (table, page) in answer.pages { sizes.add(page.receivedCount, table) }
        return answer
    }
}
