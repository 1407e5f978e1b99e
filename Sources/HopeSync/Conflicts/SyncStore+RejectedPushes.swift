import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Whole-row pushes the server refused for their own sake, on and off the rejected list.
extension SyncStore {
    /// The server refused `row` for its own sake: it goes on the rejected list and is not sent
    /// again until it is edited or retried.
    func reject(_ row: ColumnValues, in table: TableSchema, error: ServerError) throws(SyncError) {
        let sql = try tableSQL(table.name)
        let id = row.values[0].databaseValue
        try writeTransaction { database in
            if let mark = sql.markRejected, let stamp = row[ReservedColumn.updatedMs] {
                try database.execute(mark, [id, stamp.databaseValue])
            } else {
                try database.execute(sql.markRejectedUnguarded, [id])
            }
            let entry = RejectedEntry(
                table: table.name, operation: .upsert, rowID: row.values[0].text ?? "", serverError: error,
                message: error.message, createdMs: state.wallClock())
            try entry.record(for: userID, atMs: state.wallClock(), database)
        }
    }

    /// Rows of a version table pushed whole that the server left as it held them (the answer to
    /// an earlier push of them was lost, or the row was edited while its first push was out and
    /// another device wrote it meanwhile; the stored row wins: a retried insert must not undo
    /// what was written since). The server's copy replaces the local row at once after this; a
    /// value the device sent that the copy does not hold (an edit made after that first push,
    /// a delete) is kept on the rejected list with the row's body, not retryable (sent again it
    /// would change nothing): nothing the user wrote goes silently.
    func keepValuesNotTaken(_ sent: [ColumnValues], server: [ColumnValues], in table: TableSchema) throws(SyncError) {
        let followed = table.scope?.kind == .follows ? table.scope?.column : nil
        let compared = table.columns.filter { ($0.role == .user || $0.role == .deletedMs) && $0.name != followed }.map(\.name)
        let copies = Dictionary(server.map { ($0[table.primaryKey]?.text ?? "", $0) }, uniquingKeysWith: { _, last in last })
        let lost = sent.filter { row in
            guard let copy = copies[row[table.primaryKey]?.text ?? ""] else { return false }
            return compared.contains { row[$0] != copy[$0] }
        }
        guard !lost.isEmpty else { return }
        try writeTransaction { database in
            for row in lost {
                let entry = RejectedEntry(
                    table: table.name, operation: .upsert, rowID: row[table.primaryKey]?.text ?? "", body: row,
                    message:
                        "The server kept its copy of this row, which another write changed first (another device's, or an earlier push of this one whose answer was lost): these values of this device's were not taken.",
                    createdMs: state.wallClock(), retryable: false,
                    changedBy: QueuedMutation.lastWriter(of: copies[row[table.primaryKey]?.text ?? ""]))
                try entry.record(for: userID, atMs: state.wallClock(), database)
            }
        }
    }

    /// Takes a rejected upsert off the list; its row is pushed again (`.dirty`) or stops waiting.
    func setRejected(entryID: Int64, table: String, rowID: UUID, to dirty: DirtyState) throws(SyncError) {
        let sql = try tableSQL(table)
        try writeTransaction { database in
            try database.execute(
                "UPDATE \(sql.quotedName) SET _dirty = ? \(sql.whereKey) AND _dirty = \(DirtyState.rejected.sql)",
                [.integer(dirty.rawValue), .text(rowID.lowercasedString)]
            )
            try database.execute("DELETE FROM _sync_rejected WHERE id = ?", [.integer(entryID)])
        }
        state.notifyObservers()
        if dirty == .dirty { state.localWriteHandler?() }
    }
}
