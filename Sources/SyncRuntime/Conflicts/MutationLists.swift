import Foundation
import SQLite

/// A refusal to record on the rejected list.
struct RejectedEntry {
    var table: String
    var operation: MutationOperation
    var rowID: String
    var body: ColumnValues?
    var baseVersion: String?
    var base: ColumnValues?
    var filters: [Filter] = []
    var serverError: ServerError?
    var message: String
    var createdMs: Int64
}

/// Writing the conflicted and rejected lists (inside a store transaction), within their bounds.
extension SyncStore {
    static let rejectedTextColumns = ["body", "base", "message", "details", "hint"]
    static let conflictedTextColumns = ["body", "base", "server", "message"]

    func recordRejection(_ record: RejectedEntry, _ database: Database) throws {
        if record.operation == .upsert {
            // A row's push carries the whole row, so its newest refusal says everything the older
            // ones did: one row, one entry.
            try database.execute(
                "DELETE FROM _sync_rejected WHERE user_id IN (?, '') AND table_name = ? AND row_id = ? AND operation = ?",
                [.text(userID.lowercasedString), .text(record.table), .text(record.rowID), .text(record.operation.rawValue)])
        }
        let body = ListBounds.keptBody(record.body.map(StoredValues.encode))
        let error = record.serverError
        try database.execute(
            """
            INSERT INTO _sync_rejected (user_id, table_name, operation, row_id, body, base_version, base, filters,
                retryable, status, code, message, details, hint, created_ms, rejected_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(userID.lowercasedString), .text(record.table), .text(record.operation.rawValue), .text(record.rowID),
                body.map(DatabaseValue.text) ?? .null, record.baseVersion.map(DatabaseValue.text) ?? .null,
                record.base.map { .text(StoredValues.encode($0)) } ?? .null, .text(StoredValues.encode(record.filters)),
                .integer(record.operation == .upsert || body != nil ? 1 : 0),
                error.map { .integer(Int64($0.status)) } ?? .null, error?.code.map(DatabaseValue.text) ?? .null,
                .text(ListBounds.clipped(error?.message ?? record.message)),
                ListBounds.clipped(error?.details).map(DatabaseValue.text) ?? .null,
                ListBounds.clipped(error?.hint).map(DatabaseValue.text) ?? .null,
                .integer(record.createdMs), .integer(state.wallClock()),
            ])
        try ListBounds.enforce(on: "_sync_rejected", textColumns: Self.rejectedTextColumns, database)
    }

    func recordConflict(_ write: QueuedMutation, _ conflict: ConflictedEntry, _ database: Database) throws {
        try database.execute(
            """
            INSERT INTO _sync_conflicted (id, user_id, table_name, operation, row_id, body, base, filters, server,
                server_version, changed_on_server, conflicting_columns, message, created_ms, conflicted_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(write.id), .text(userID.lowercasedString), .text(write.table.name), .text(write.operation.rawValue),
                .text(write.rowID.lowercasedString), ListBounds.keptBody(StoredValues.encode(write.body)).map(DatabaseValue.text) ?? .null,
                .text(StoredValues.encode(write.base)), .text(StoredValues.encode(write.filters)),
                conflict.server.map { .text(StoredValues.encode($0)) } ?? .null,
                conflict.server?[write.versionColumn]?.versionText.map(DatabaseValue.text) ?? .null,
                .text(StoredValues.encodeList(conflict.changedOnServer)), .text(StoredValues.encodeList(conflict.conflictingColumns)),
                .text(ListBounds.clipped(conflict.message)), .integer(write.createdMs), .integer(state.wallClock()),
            ])
        try ListBounds.enforce(on: "_sync_conflicted", textColumns: Self.conflictedTextColumns, database)
    }
}

/// What parks a write: the conflict as the replay saw it, and why.
struct ConflictedEntry {
    var server: ColumnValues?
    var changedOnServer: [String] = []
    var conflictingColumns: [String] = []
    var message: String
}

/// How many writes wait where, read in one transaction.
struct WaitingCounts {
    var dirty: Int
    var pending: Int
    var conflicted: Int
    var rejected: Int
}

/// Reading the queue and the lists: the current user's entries, oldest first.
extension StoreReader {
    /// The guarded writes waiting to be replayed.
    public func pendingMutations() throws -> [PendingMutation] {
        try queuedMutations().map(\.publicValue)
    }

    public func conflictedMutations() throws -> [ConflictedMutation] {
        try database.fetchAll(
            """
            SELECT id, table_name, operation, row_id, body, base, server, server_version, changed_on_server,
                conflicting_columns, message, created_ms, conflicted_ms
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
                message: row.text(at: 10) ?? "", createdAtMs: row.int64(at: 11), conflictedAtMs: row.int64(at: 12)
            )
        }
    }

    public func rejectedMutations() throws -> [RejectedMutation] {
        try database.fetchAll(
            """
            SELECT id, table_name, operation, row_id, body, status, code, message, details, hint, retryable,
                created_ms, rejected_ms
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
                message: row.text(at: 7) ?? "", isRetryable: row.int64(at: 10) != 0,
                createdAtMs: row.isNull(at: 11) ? row.int64(at: 12) : row.int64(at: 11), rejectedAtMs: row.int64(at: 12)
            )
        }
    }

    func waitingCounts() throws -> WaitingCounts {
        let user: [DatabaseValue] = [.text(store.userID.lowercasedString)]
        func count(_ sql: String) throws -> Int {
            try database.fetchOne(sql, user) { Int($0.int64(at: 0)) } ?? 0
        }
        return WaitingCounts(
            dirty: try dirtyCount(),
            pending: try count("SELECT count(*) FROM _sync_mutations WHERE user_id = ?"),
            conflicted: try count("SELECT count(*) FROM _sync_conflicted WHERE user_id = ?"),
            rejected: try count("SELECT count(*) FROM _sync_rejected WHERE user_id IN (?, '')")
        )
    }

    /// The queue in replay order, each write with its base.
    func queuedMutations(id: Int64? = nil) throws -> [QueuedMutation] {
        try database.fetchAll(
            """
            SELECT id, table_name, operation, row_id, body, base_version, base, filters, created_ms
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
                filters: try StoredValues.decodeFilters(row.text(at: 7) ?? "[]"), createdMs: row.int64(at: 8)
            )
        }
    }
}

extension SyncStore {
    /// The conflicted list now and after every change (the first value at once).
    public func observeConflictedMutations() -> AsyncThrowingStream<[ConflictedMutation], any Error> {
        observe { try $0.conflictedMutations() }
    }

    /// The conflicted list, read once.
    public func conflictedMutations() throws -> [ConflictedMutation] {
        try read { try $0.conflictedMutations() }
    }

    /// The rejected list now and after every change (the first value at once).
    public func observeRejectedMutations() -> AsyncThrowingStream<[RejectedMutation], any Error> {
        observe { try $0.rejectedMutations() }
    }

    /// The rejected list, read once.
    public func rejectedMutations() throws -> [RejectedMutation] {
        try read { try $0.rejectedMutations() }
    }

    /// The queued guarded writes, read once.
    public func pendingMutations() throws -> [PendingMutation] {
        try read { try $0.pendingMutations() }
    }
}
