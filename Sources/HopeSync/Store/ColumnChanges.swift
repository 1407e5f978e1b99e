import HopeSyncSQLite

/// The renames and deprecations the app's migrations made (decision 0052). A generated local
/// migration renames or drops the column and its column_stamps key itself, and lists the change
/// in `_sync_column_changes`; the runtime's bookkeeping that names columns (the queued guarded
/// writes, the conflicted and rejected lists) is the runtime's to rewrite, here, after every
/// migration ran, so the writes this device made before the update go out through the new
/// names. A deprecated column's values leave those writes, and a deprecated table's writes and
/// cursors go: this build no longer has them. A renamed table (no column named, its new name
/// given: decision 0054) takes its bookkeeping along.
struct ColumnChange: Equatable {
    let table: String
    let old: String
    /// nil: dropped.
    let new: String?

    /// The changes listed and not applied yet (a migration lists them; applying empties it).
    static func pending(_ database: Database) throws -> [ColumnChange] {
        let listed =
            try database.fetchOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sync_column_changes'") { _ in true }
            ?? false
        guard listed else { return [] }
        return try database.fetchAll("SELECT table_name, old_name, new_name FROM _sync_column_changes ORDER BY rowid") {
            ColumnChange(table: $0.text(at: 0) ?? "", old: $0.text(at: 1) ?? "", new: $0.text(at: 2))
        }
    }

    /// The bookkeeping columns holding `[column, value]` pairs or `[column, op, value]` filters.
    private static let entries = [
        ("_sync_mutations", ["body", "base", "filters"]),
        ("_sync_conflicted", ["body", "base", "filters", "server"]),
        ("_sync_rejected", ["body", "base", "filters"]),
    ]
    /// Those holding lists of column names.
    private static let lists = [("_sync_conflicted", ["changed_on_server", "conflicting_columns"])]

    /// The bookkeeping of a table, all of it forgotten when the table is deprecated.
    static let perTable = [
        "_sync_mutations", "_sync_conflicted", "_sync_rejected", "_sync_cursors", "_sync_refresh", "_sync_stream_cursors",
    ]

    /// Rewrites every entry of its table that names the old column (or forgets every entry of
    /// a deprecated table: `old` empty), then forgets the change.
    func apply(_ database: Database) throws {
        if old.isEmpty, let new {
            try TableRename(old: table, new: new).apply(database)
            try database.execute("DELETE FROM _sync_column_changes WHERE table_name = ? AND old_name = ''", [.text(table)])
            return
        }
        if old.isEmpty {
            for bookkeeping in Self.perTable {
                try database.execute("DELETE FROM \(bookkeeping) WHERE table_name = ?", [.text(table)])
            }
            try database.execute("DELETE FROM _sync_meta WHERE key = ?", [.text(StoreMigrator.repullKey(table))])
            try database.execute("DELETE FROM _sync_column_changes WHERE table_name = ? AND old_name = ''", [.text(table)])
            return
        }
        let name = "json_extract(e.value, '$[0]')"
        for (bookkeeping, columns) in Self.entries {
            for column in columns {
                let item =
                    new == nil ? "json(e.value)" : "json(CASE WHEN \(name) = ?2 THEN json_replace(e.value, '$[0]', ?3) ELSE e.value END)"
                try rewrite(bookkeeping, column, item, kept: new == nil ? "\(name) IS NOT ?2" : "1", database)
            }
        }
        for (bookkeeping, columns) in Self.lists {
            for column in columns {
                let item = new == nil ? "e.value" : "CASE WHEN e.value = ?2 THEN ?3 ELSE e.value END"
                try rewrite(bookkeeping, column, item, kept: new == nil ? "e.value IS NOT ?2" : "1", database)
            }
        }
        try database.execute(
            "DELETE FROM _sync_column_changes WHERE table_name = ? AND old_name = ? AND new_name IS ?",
            [.text(table), .text(old), new.map { .text($0) } ?? .null])
    }

    /// Each entry's `column` made again from its items: `item` of each item that is `kept`.
    private func rewrite(_ bookkeeping: String, _ column: String, _ item: String, kept: String, _ database: Database) throws {
        try database.execute(
            """
            UPDATE \(bookkeeping) SET \(column) = (SELECT json_group_array(\(item)) FROM json_each(\(bookkeeping).\(column)) e WHERE \(kept))
            WHERE table_name = ?1 AND \(column) IS NOT NULL AND json_valid(\(column))
            """, [.text(table), .text(old)] + (new.map { [.text($0)] } ?? []))
    }
}
