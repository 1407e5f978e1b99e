import Foundation
import HopeSyncSQLite

/// What parks a write: the conflict as the replay saw it, and why.
struct ConflictedEntry {
    var server: ColumnValues?
    var changedOnServer: [String] = []
    var conflictingColumns: [String] = []
    var message: String
    /// The last writer of the server's row as read (``ConflictedMutation/serverChangedBy``).
    var serverChangedBy: UUID? = nil

    /// What the list's size is counted over.
    static let textColumns = ["body", "base", "server", "message"]

    /// Records `write`, parked for this conflict, for `userID` (inside a store transaction),
    /// within the list's bounds.
    func record(_ write: QueuedMutation, for userID: UUID, atMs nowMs: Int64, _ database: Database) throws {
        try database.execute(
            """
            INSERT INTO _sync_conflicted (id, user_id, table_name, operation, row_id, body, base, filters, server,
                server_version, changed_on_server, conflicting_columns, message, created_ms, conflicted_ms, server_changed_by)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(write.id), .text(userID.lowercasedString), .text(write.table.name), .text(write.operation.rawValue),
                .text(write.rowID.lowercasedString), ListBounds.keptBody(StoredValues.encode(write.body)).map(DatabaseValue.text) ?? .null,
                .text(StoredValues.encode(write.base)), .text(StoredValues.encode(write.filters)),
                server.map { .text(StoredValues.encode($0)) } ?? .null,
                server?[write.versionColumn]?.versionText.map(DatabaseValue.text) ?? .null,
                .text(StoredValues.encodeList(changedOnServer)), .text(StoredValues.encodeList(conflictingColumns)),
                .text(ListBounds.clipped(message)), .integer(write.createdMs), .integer(nowMs),
                serverChangedBy.map { .text($0.lowercasedString) } ?? .null,
            ])
        try ListBounds.enforce(on: "_sync_conflicted", textColumns: Self.textColumns, database)
    }
}
