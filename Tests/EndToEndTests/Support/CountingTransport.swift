import Foundation
import SyncRuntime
import SyncTestSupport

/// A transport that counts the upserts it passes on, per table.
final class CountingTransport: ForwardingTransport, Sendable {
    let base: any SyncTransport
    private let upserts = Locked<[String: Int]>([:])

    var forwardee: any SyncTransport { base }

    init(_ base: any SyncTransport) {
        self.base = base
    }

    func upserts(into table: String) -> Int {
        upserts.withLock { $0[table] ?? 0 }
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        upserts.withLock { $0[table.name, default: 0] += 1 }
        return try await base.upsert(rows, into: table, as: user)
    }
}
