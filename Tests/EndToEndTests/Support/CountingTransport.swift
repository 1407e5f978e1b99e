import Foundation
import SyncRuntime
import SyncTestSupport

/// A transport that counts the upserts it passes on, per table.
final class CountingTransport: ForwardingTransport, @unchecked Sendable {
    let base: any SyncTransport
    private let lock = NSLock()
    private var upserts: [String: Int] = [:]

    var forwardee: any SyncTransport { base }

    init(_ base: any SyncTransport) {
        self.base = base
    }

    func upserts(into table: String) -> Int {
        lock.withLock { upserts[table] ?? 0 }
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        lock.withLock { upserts[table.name, default: 0] += 1 }
        return try await base.upsert(rows, into: table, as: user)
    }
}
