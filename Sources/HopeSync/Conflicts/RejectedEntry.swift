import Foundation
import HopeSyncSQLite

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
    /// Whether Retry may send it again; nil: an upsert, or a write whose body is kept, may.
    var retryable: Bool? = nil
    /// The user whose write the server kept instead (``RejectedMutation/changedBy``).
    var changedBy: UUID? = nil

    /// What the list's size is counted over.
    static let textColumns = ["body", "base", "message", "details", "hint"]

    /// Records the refusal for `userID` (inside a store transaction), within the list's bounds.
    func record(for userID: UUID, atMs nowMs: Int64, _ database: Database) throws {
        if operation == .upsert {
            // A row's push carries the whole row, so its newest refusal says everything the older
            // ones did: one row, one entry.
            try database.execute(
                "DELETE FROM _sync_rejected WHERE user_id IN (?, '') AND table_name = ? AND row_id = ? AND operation = ?",
                [.text(userID.lowercasedString), .text(table), .text(rowID), .text(operation.rawValue)])
        }
        let kept = ListBounds.keptBody(body.map(StoredValues.encode))
        let error = serverError
        try database.execute(
            """
            INSERT INTO _sync_rejected (user_id, table_name, operation, row_id, body, base_version, base, filters,
                retryable, status, code, message, details, hint, created_ms, rejected_ms, changed_by)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(userID.lowercasedString), .text(table), .text(operation.rawValue), .text(rowID),
                kept.map(DatabaseValue.text) ?? .null, baseVersion.map(DatabaseValue.text) ?? .null,
                base.map { .text(StoredValues.encode($0)) } ?? .null, .text(StoredValues.encode(filters)),
                .integer((retryable ?? (operation == .upsert || kept != nil)) ? 1 : 0),
                error.map { .integer(Int64($0.status)) } ?? .null, error?.code.map(DatabaseValue.text) ?? .null,
                .text(ListBounds.clipped(error?.message ?? message)),
                ListBounds.clipped(error?.details).map(DatabaseValue.text) ?? .null,
                ListBounds.clipped(error?.hint).map(DatabaseValue.text) ?? .null,
                .integer(createdMs), .integer(nowMs), changedBy.map { .text($0.lowercasedString) } ?? .null,
            ])
        try ListBounds.enforce(on: "_sync_rejected", textColumns: Self.textColumns, database)
    }
}

extension RejectedEntry {
    /// The refusal of a queued guarded write, kept whole (its body, base and filters).
    init(_ write: QueuedMutation, serverError: ServerError? = nil, message: String, retryable: Bool? = nil) {
        self.init(
            table: write.table.name, operation: write.operation, rowID: write.rowID.lowercasedString, body: write.body,
            baseVersion: write.baseVersion, base: write.base, filters: write.filters, serverError: serverError, message: message,
            createdMs: write.createdMs, retryable: retryable)
    }
}
