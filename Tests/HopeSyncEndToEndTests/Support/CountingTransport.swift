import Foundation
@_spi(Transport) import HopeSync
import HopeSyncTestSupport

/// A transport that counts the upserts it passes on, per table, the pulls (table by table and
/// through the pull function) and the hellos.
final class CountingTransport: ForwardingTransport, Sendable {
    let base: any SyncTransport
    private let upserts = Locked<[String: Int]>([:])
    private let pulls = Locked<[String: Int]>([:])

    var forwardee: any SyncTransport { base }

    init(_ base: any SyncTransport) {
        self.base = base
    }

    func upserts(into table: String) -> Int {
        upserts.withLock { $0[table] ?? 0 }
    }

    /// Pulls of one table each so far.
    var tablePulls: Int { pulls.withLock { $0["tables"] ?? 0 } }
    /// Calls of the pull function so far (those the server failed included).
    var functionPulls: Int { pulls.withLock { $0["function"] ?? 0 } }
    /// The device's hellos so far.
    var hellos: Int { pulls.withLock { $0["hello"] ?? 0 } }

    func hello(schemaVersion: Int, deviceID: String, as user: Credentials) async throws(SyncError) -> ServerHello? {
        pulls.withLock { $0["hello", default: 0] += 1 }
        return try await base.hello(schemaVersion: schemaVersion, deviceID: deviceID, as: user)
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        upserts.withLock { $0[table.name, default: 0] += 1 }
        return try await base.upsert(rows, into: table, as: user)
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        pulls.withLock { $0["tables", default: 0] += 1 }
        return try await base.pull(table, after: cursor, limit: limit, as: user)
    }

    func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        pulls.withLock { $0["function", default: 0] += 1 }
        return try await base.pull(cursors, since: mark, limit: limit, function: function, as: user)
    }
}
