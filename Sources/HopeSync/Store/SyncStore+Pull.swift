import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Pulled pages in: the server's rows applied with its comparison, and the cursor moved past them.
extension SyncStore {
    /// The largest server_seq applied (or reported) for `table`.
    func cursor(for table: TableSchema) throws(SyncError) -> Int64 {
        try withWriter { database in
            try database.fetchOne("SELECT server_seq FROM _sync_cursors WHERE table_name = ?", [.text(table.name)]) {
                $0.int64(at: 0)
            } ?? 0
        }
    }

    /// One row as the server holds it, applied with the server's comparison (`statement` is
    /// ``TableSQL/applyServerRow``): a newer row replaces the local one, a column-merge row is
    /// merged column by column, and anything older changes nothing. Returns whether it changed
    /// any value.
    func applyServerRow(_ values: [SyncValue], _ sql: TableSQL, _ statement: Statement, _ database: Database) throws -> Bool {
        if sql.merge != nil { return try applyMerging(values, sql, insertingWith: statement, database) }
        statement.reset()
        for (offset, value) in values.enumerated() { try statement.bind(value.databaseValue, at: offset + 1) }
        try statement.run()
        return database.changes > 0
    }

    /// A pulled row of a column-merge table, merged into the local one. The local row stays
    /// dirty while it still holds a write the pulled row does not (a stamp newer than the
    /// pulled one). Returns whether the pulled row changed any value.
    private func applyMerging(
        _ values: [SyncValue], _ sql: TableSQL, insertingWith insert: Statement, _ database: Database
    ) throws -> Bool {
        guard let merge = sql.merge else { return false }
        insert.reset()
        for (offset, value) in values.enumerated() { try insert.bind(value.databaseValue, at: offset + 1) }
        try insert.run()
        if database.changes > 0 { return true }
        let pulled = merge.row(tableValues: values)
        guard let local = try sql.storedRow(merge.value(ReservedColumn.id, in: pulled)?.text ?? "", database) else { return false }
        let holdsMore = merge.stamped.indices.contains { register in
            guard let mine = local.row.stamps[register] else { return false }
            return pulled.stamps[register].map { mine > $0 } ?? true
        }
        let dirty: DirtyState = local.dirty == .dirty && !holdsMore ? .clean : local.dirty
        // The columns only the server writes (server_seq, a shared table's updated_by) are the
        // pulled row's, whatever the merge makes of the others.
        let serverWritten: [(String, SyncValue)] = sql.table.columns.compactMap { column in
            column.role.isWrittenByServerOnly ? (column.name, merge.value(column.name, in: pulled) ?? .null) : nil
        }
        guard var merged = merge.merge(pulled, into: local.row) else {
            // Nothing newer that this build holds (this device's own write coming back, or a
            // newer schema's column): the sequence number, the row's pair and whether the row
            // still waits can change.
            var row = local.row
            for (name, value) in serverWritten { merge.setValue(value, name, in: &row) }
            Self.keepNewestPair(&row, pulled, merge)
            guard dirty != local.dirty || row != local.row else { return false }
            try sql.write(row, dirty: dirty, database)
            return false
        }
        for (name, value) in serverWritten { merge.setValue(value, name, in: &merged) }
        Self.keepNewestPair(&merged, pulled, merge)
        try sql.write(merged, dirty: dirty, database)
        return true
    }

    /// A row's pair is its newest write's, which may be a write of a column this build does not
    /// hold: the pulled row's pair when that is newer.
    private static func keepNewestPair(_ row: inout RowMerge.Row, _ pulled: RowMerge.Row, _ merge: RowMerge) {
        guard merge.pair(of: pulled) > merge.pair(of: row) else { return }
        merge.setValue(merge.value(ReservedColumn.updatedMs, in: pulled), ReservedColumn.updatedMs, in: &row)
        merge.setValue(merge.value(ReservedColumn.deviceId, in: pulled), ReservedColumn.deviceId, in: &row)
    }

    /// Tables whose local migration added columns: pulled again from the start before anything
    /// of theirs is pushed, so the device shows the server's values of the new columns.
    func tablesAwaitingRepull() throws(SyncError) -> [TableSchema] {
        let keys = Set(
            try withWriter { database in
                try database.fetchAll("SELECT key FROM _sync_meta WHERE key LIKE 'repull:%'") { $0.text(at: 0) ?? "" }
            })
        return schema.tables.filter { keys.contains(StoreMigrator.repullKey($0.name)) }
    }

    func finishRepull(of tables: [TableSchema]) throws(SyncError) {
        try withWriter { database in
            for table in tables {
                try database.execute("DELETE FROM _sync_meta WHERE key = ?", [.text(StoreMigrator.repullKey(table.name))])
            }
        }
    }
}
