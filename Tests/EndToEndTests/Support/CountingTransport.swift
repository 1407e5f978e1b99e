import Foundation
import SyncRuntime

/// A transport that counts the upserts it passes on, per table.
final class CountingTransport: SyncTransport, @unchecked Sendable {
    let base: any SyncTransport
    private let lock = NSLock()
    private var upserts: [String: Int] = [:]

    init(_ base: any SyncTransport) {
        self.base = base
    }

    func upserts(into table: String) -> Int {
        lock.withLock { upserts[table] ?? 0 }
    }

    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) {
        lock.withLock { upserts[table.name, default: 0] += 1 }
        try await base.upsert(rows, into: table, as: user)
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        try await base.pull(table, after: cursor, limit: limit, as: user)
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        try await base.guardedUpdate(
            table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
    }

    func fetch(_ table: TableSchema, id: UUID, columns: [String], as user: Credentials) async throws(SyncError) -> ColumnValues? {
        try await base.fetch(table, id: id, columns: columns, as: user)
    }
}
