import Foundation
@_spi(Transport) import HopeSync

/// A test transport that passes every request on to `forwardee`: a conforming type implements
/// only the requests it watches or changes.
package protocol ForwardingTransport: SyncTransport {
    var forwardee: any SyncTransport { get }
}

extension ForwardingTransport {
    @discardableResult
    package func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try await forwardee.upsert(rows, into: table, as: user)
    }

    package func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        try await forwardee.pull(table, after: cursor, limit: limit, as: user)
    }

    package func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        try await forwardee.guardedUpdate(
            table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
    }

    package func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues]
    {
        try await forwardee.fetch(table, ids: ids, columns: columns, as: user)
    }

    package func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        try await forwardee.pull(cursors, since: mark, limit: limit, function: function, as: user)
    }

    package func hello(schemaVersion: Int, deviceID: String, as user: Credentials) async throws(SyncError) -> ServerHello? {
        try await forwardee.hello(schemaVersion: schemaVersion, deviceID: deviceID, as: user)
    }

    @discardableResult
    package func changeMembership(_ change: MembershipChange, in membershipTable: TableSchema, as user: Credentials) async throws(SyncError)
        -> [ColumnValues]
    {
        try await forwardee.changeMembership(change, in: membershipTable, as: user)
    }
}
