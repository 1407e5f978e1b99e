/// A table's file columns in its statements.
extension TableSQL {
    /// ` AND` a condition that holds when none of the row's files waits for its upload (empty for
    /// a table without file columns).
    static func filesUploaded(_ table: TableSchema) -> String {
        table.columns.compactMap { column in
            column.type.bucket.map { bucket in
                """
                 AND NOT EXISTS (SELECT 1 FROM _sync_files WHERE bucket = \(sqlText(bucket)) \
                AND name = \(quoted(table.name)).\(quoted(column.name)) AND state = '\(SyncFileState.uploadQueued.stored)')
                """
            }
        }.joined()
    }
}

/// `'text'`, quotes doubled.
func sqlText(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
}
