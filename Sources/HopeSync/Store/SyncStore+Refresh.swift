import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Rows whose local copy must be replaced by the server's: after the user settles a write the
/// server never took (keep theirs, dismissing a conflicted or rejected write, discarding a
/// queued one), the device holds values the server does not, with a `server_seq` no pull will
/// pass again. The engine fetches each such row by key on its next pass (or removes it, when
/// the server has none), so every device converges on the server's copy.
extension SyncStore {
    /// Asks for the row to be fetched again on the next pass (inside a store transaction).
    func requestRefresh(table: String, rowID: UUID, _ database: Database) throws {
        try database.execute(
            "INSERT OR IGNORE INTO _sync_refresh (table_name, row_id) VALUES (?, ?)", [.text(table), .text(rowID.lowercasedString)]
        )
    }

    /// The rows to fetch again, oldest request first.
    func rowsToRefresh() throws(SyncError) -> [(table: TableSchema, rowID: UUID)] {
        try withWriter { database in
            try database.fetchAll("SELECT table_name, row_id FROM _sync_refresh ORDER BY rowid") { row in
                (row.text(at: 0) ?? "", UUID(text: row.text(at: 1) ?? ""))
            }
        }.compactMap { name, id in
            guard let table = schema.table(named: name), let id else { return nil }
            return (table, id)
        }
    }

    /// Lays the server's copy of the row (or its absence) over the local one, unless the row was
    /// written again meanwhile: then its own push settles it.
    func refresh(_ table: TableSchema, rowID: UUID, with server: ColumnValues?) throws(SyncError) {
        let sql = try tableSQL(table.name)
        let key = DatabaseValue.text(rowID.lowercasedString)
        try writeTransaction { database in
            try database.execute("DELETE FROM _sync_refresh WHERE table_name = ? AND row_id = ?", [.text(table.name), key])
            let dirty = try database.fetchOne("SELECT _dirty FROM \(sql.quotedName) \(sql.whereKey)", [key]) { $0.int64(at: 0) }
            let queued =
                try database.fetchOne(
                    "SELECT 1 FROM _sync_mutations WHERE table_name = ? AND row_id = ?", [.text(table.name), key]
                ) { _ in true } ?? false
            guard dirty != DirtyState.dirty.rawValue, !queued else { return }
            guard let server else {
                try database.execute("DELETE FROM \(sql.quotedName) \(sql.whereKey)", [key])
                return
            }
            let values = table.columnNames.map { server[$0] ?? .null }
            let statement = try database.cachedStatement(sql.writeRow)
            try statement.execute(values.map(\.databaseValue) + [.integer(DirtyState.clean.rawValue)])
        }
        state.notifyObservers()
    }
}
