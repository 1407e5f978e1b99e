import Foundation
import SyncRuntime

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
struct RecordingPulls: SyncTransport {
    let base: InMemoryServer
    let sizes: PulledSizes

    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) {
        try await base.upsert(rows, into: table, as: user)
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        let page = try await base.pull(table, after: cursor, limit: limit, as: user)
        sizes.add(page.receivedCount, table.name)
        return page
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        try await base.guardedUpdate(table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
    }

    func fetch(_ table: TableSchema, id: UUID, columns: [String], as user: Credentials) async throws(SyncError) -> ColumnValues? {
        try await base.fetch(table, id: id, columns: columns, as: user)
    }
}

