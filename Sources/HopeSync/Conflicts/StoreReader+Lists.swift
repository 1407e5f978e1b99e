import Foundation
import HopeSyncSQLite

/// Reading the queue and the lists: the current user's entries, oldest first.
extension StoreReader {
    /// The guarded writes waiting to be replayed.
    public func pendingMutations() throws(SyncError) -> [PendingMutation] {
        try queuedMutations().map(\.publicValue)
    }

    public func conflictedMutations() throws(SyncError) -> [ConflictedMutation] {
        try SyncError.local { try conflictedMutationRows() }
    }

    private func conflictedMutationRows() throws -> [ConflictedMutation] {
        try database.fetchAll(
            """
            SELECT id, table_name, operation, row_id, body, base, server, server_version, changed_on_server,
                conflicting_columns, message, created_ms, conflicted_ms, server_changed_by
            FROM _sync_conflicted WHERE user_id = ? ORDER BY id
            """, [.text(store.userID.lowercasedString)]
        ) { row in
            ConflictedMutation(
                id: row.int64(at: 0), table: row.text(at: 1) ?? "",
                operation: MutationOperation(rawValue: row.text(at: 2) ?? "") ?? .update,
                rowID: UUID(text: row.text(at: 3) ?? "") ?? UUID(),
                body: try row.text(at: 4).map(StoredValues.decode), base: try StoredValues.decode(row.text(at: 5) ?? "[]"),
                server: try row.text(at: 6).map(StoredValues.decode), serverVersion: row.text(at: 7),
                changedOnServer: StoredValues.decodeList(row.text(at: 8) ?? "[]"),
                conflictingColumns: StoredValues.decodeList(row.text(at: 9) ?? "[]"),
                serverChangedBy: row.text(at: 13).flatMap(UUID.init(text:)),
                message: row.text(at: 10) ?? "", createdAtMs: row.int64(at: 11), conflictedAtMs: row.int64(at: 12)
            )
        }
    }

    public func rejectedMutations() throws(SyncError) -> [RejectedMutation] {
        try SyncError.local { try rejectedMutationRows() }
    }

    private func rejectedMutationRows() throws -> [RejectedMutation] {
        try database.fetchAll(
            """
            SELECT id, table_name, operation, row_id, body, status, code, message, details, hint, retryable,
                created_ms, rejected_ms, changed_by
            FROM _sync_rejected WHERE user_id IN (?, '') ORDER BY id
            """, [.text(store.userID.lowercasedString)]
        ) { row in
            RejectedMutation(
                id: row.int64(at: 0), table: row.text(at: 1) ?? "",
                operation: MutationOperation(rawValue: row.text(at: 2) ?? "") ?? .upsert,
                rowID: UUID(text: row.text(at: 3) ?? "") ?? UUID(),
                body: try row.text(at: 4).map(StoredValues.decode),
                serverError: row.isNull(at: 5)
                    ? nil
                    : ServerError(
                        status: Int(row.int64(at: 5)), code: row.text(at: 6), message: row.text(at: 7) ?? "",
                        details: row.text(at: 8), hint: row.text(at: 9)
                    ),
                message: row.text(at: 7) ?? "", changedBy: row.text(at: 13).flatMap(UUID.init(text:)),
                isRetryable: row.int64(at: 10) != 0,
                createdAtMs: row.isNull(at: 11) ? row.int64(at: 12) : row.int64(at: 11), rejectedAtMs: row.int64(at: 12)
            )
        }
    }

    func waitingCounts() throws(SyncError) -> WaitingCounts {
        let user: [DatabaseValue] = [.text(store.userID.lowercasedString)]
        func count(_ sql: String) throws(SyncError) -> Int {
            try SyncError.local { try database.fetchOne(sql, user) { Int($0.int64(at: 0)) } ?? 0 }
        }
        return WaitingCounts(
            dirty: try dirtyCount(),
            pending: try count("SELECT count(*) FROM _sync_mutations WHERE user_id = ?"),
            conflicted: try count("SELECT count(*) FROM _sync_conflicted WHERE user_id = ?"),
            rejected: try count("SELECT count(*) FROM _sync_rejected WHERE user_id IN (?, '')")
        )
    }

    /// The queue in replay order, each write with its base.
    func queuedMutations(id: Int64? = nil) throws(SyncError) -> [QueuedMutation] {
        try SyncError.local { try queuedMutationRows(id: id) }
    }

    private func queuedMutationRows(id: Int64?) throws -> [QueuedMutation] {
        try database.fetchAll(
            """
            SELECT id, table_name, operation, row_id, body, base_version, base, filters, created_ms, may_have_landed
            FROM _sync_mutations WHERE user_id = ? AND (? IS NULL OR id = ?) ORDER BY id
            """, [.text(store.userID.lowercasedString), id.map(DatabaseValue.integer) ?? .null, id.map(DatabaseValue.integer) ?? .null]
        ) { row in
            guard let table = store.schema.table(named: row.text(at: 1) ?? "") else {
                throw SyncError(.configuration, "A queued write names a table this schema lacks")
            }
            return QueuedMutation(
                id: row.int64(at: 0), table: table,
                operation: MutationOperation(rawValue: row.text(at: 2) ?? "") ?? .update,
                rowID: UUID(text: row.text(at: 3) ?? "") ?? UUID(),
                body: try StoredValues.decode(row.text(at: 4) ?? "[]"), baseVersion: row.text(at: 5) ?? "",
                base: try StoredValues.decode(row.text(at: 6) ?? "[]"),
                filters: try StoredValues.decodeFilters(row.text(at: 7) ?? "[]"), createdMs: row.int64(at: 8),
                mayHaveLanded: row.int64(at: 9) != 0
            )
        }
    }
}
