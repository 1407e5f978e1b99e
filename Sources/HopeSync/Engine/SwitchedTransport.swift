import Foundation
import HopeSyncLocking

/// A transport that refuses every request while the app's "simulate offline" switch is off.
struct SwitchedTransport: SyncTransport {
    let base: any SyncTransport
    /// The switch: on (true) unless the app turned the network off.
    let networkEnabled: Locked<Bool>

    private func check() throws(SyncError) {
        guard networkEnabled.value else {
            throw SyncError(.networkDisabled, "The network is switched off in this app; the write stays queued.")
        }
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try check()
        return try await base.upsert(rows, into: table, as: user)
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials, announcingPokes: Bool) async throws(SyncError)
        -> UpsertedRows
    {
        try check()
        return try await base.upsert(rows, into: table, as: user, announcingPokes: announcingPokes)
    }

    func hello(schemaVersion: Int, deviceID: String, as user: Credentials) async throws(SyncError) -> ServerHello? {
        try check()
        return try await base.hello(schemaVersion: schemaVersion, deviceID: deviceID, as: user)
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        try check()
        return try await base.pull(table, after: cursor, limit: limit, as: user)
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        try check()
        return try await base.guardedUpdate(
            table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
    }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
        try check()
        return try await base.fetch(table, ids: ids, columns: columns, as: user)
    }

    func pull(_ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials) async throws(SyncError)
        -> PulledTables
    {
        try check()
        return try await base.pull(cursors, since: mark, limit: limit, function: function, as: user)
    }

    @discardableResult
    func changeMembership(_ change: MembershipChange, in membershipTable: TableSchema, as user: Credentials) async throws(SyncError)
        -> [ColumnValues]
    {
        try check()
        return try await base.changeMembership(change, in: membershipTable, as: user)
    }
}
