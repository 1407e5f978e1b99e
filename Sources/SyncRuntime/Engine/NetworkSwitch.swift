import Foundation

/// The app's "simulate offline" switch, checked before every request.
final class NetworkSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var enabled = true

    var isEnabled: Bool {
        get { lock.withLock { enabled } }
        set { lock.withLock { enabled = newValue } }
    }
}

/// A transport that refuses every request while the switch is off.
struct SwitchedTransport: SyncTransport {
    let base: any SyncTransport
    let network: NetworkSwitch

    private func check() throws(SyncError) {
        guard network.isEnabled else {
            throw SyncError(.networkDisabled, "The network is switched off in this app; the write stays queued.")
        }
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try check()
        return try await base.upsert(rows, into: table, as: user)
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
}
