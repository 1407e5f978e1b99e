import HopeSyncSQLite

/// A table the app's migration renamed (decision 0054): its rows, cursors and dirty flags moved
/// with it, and the runtime's bookkeeping keyed by table name follows here, so the writes the
/// old build queued go out through the new name and the table is not pulled again from zero.
struct TableRename {
    let old: String
    let new: String

    func apply(_ database: Database) throws {
        // OR REPLACE: a key the new name holds already (none should) gives way to the old one's.
        for bookkeeping in ColumnChange.perTable {
            try database.execute("UPDATE OR REPLACE \(bookkeeping) SET table_name = ?2 WHERE table_name = ?1", [.text(old), .text(new)])
        }
        try database.execute(
            "UPDATE OR REPLACE _sync_meta SET key = ?2 WHERE key = ?1",
            [.text(StoreMigrator.repullKey(old)), .text(StoreMigrator.repullKey(new))])
    }
}
