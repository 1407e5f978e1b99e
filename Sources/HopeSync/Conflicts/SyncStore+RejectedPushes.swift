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
