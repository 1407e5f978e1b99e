import Foundation
import SQLite

/// How the store reads and writes rows of column-merge tables: by column name, with their stamps,
/// so a save, a delete, a close and a pulled row all go through ``RowMerge``.
extension TableSQL {
    struct StoredRow {
        var row: RowMerge.Row
        var dirty: DirtyState
    }

    func storedRow(_ id: String, _ database: Database) throws -> StoredRow? {
        guard let merge else { return nil }
        let statement = try database.cachedStatement(selectForMerge)
        return try statement.first([.text(id)]) { row in
            var values: [String: SyncValue] = [:]
            for (index, column) in table.columns.enumerated() { values[column.name] = column.syncValue(row, at: index) }
            return StoredRow(
                row: RowMerge.Row(values: values, stamps: merge.stamps(of: values)),
                dirty: DirtyState(rawValue: row.int64(at: table.columns.count)) ?? .dirty
            )
        }
    }

    func write(_ row: RowMerge.Row, dirty: DirtyState, _ database: Database) throws {
        let statement = try database.cachedStatement(writeRow)
        statement.reset()
        for (index, column) in table.columns.enumerated() {
            try statement.bind((row.values[column.name] ?? .null).databaseValue, at: index + 1)
        }
        try statement.bind(.integer(dirty.rawValue), at: table.columns.count + 1)
        try statement.run()
    }

    func row(from values: [SyncValue]) -> [String: SyncValue] {
        Dictionary(uniqueKeysWithValues: zip(table.columnNames, values))
    }
}

extension StoreWriter {
    /// Writes `changes` to the stored row with `id` as one local write: each column whose value
    /// changes gets one new stamp from the clock; nothing changes, nothing is written. Returns
    /// the row as stored, or nil when there is no such row.
    @discardableResult
    func writeColumns(_ changes: [String: SyncValue], of id: String, _ sql: TableSQL) throws -> [String: SyncValue]? {
        guard let merge = sql.merge, var stored = try sql.storedRow(id, database) else { return nil }
        let changed = merge.stamped.filter { column in changes[column].map { $0 != stored.row.values[column] } ?? false }
        guard !changed.isEmpty else { return stored.row.values }
        let stamp = WriteStamp(ms: store.state.nextStamp(after: stored.row.stamps.newest?.ms), deviceID: store.deviceID)
        for column in changed {
            stored.row.values[column] = changes[column]
            stored.row.stamps[column] = stamp
        }
        merge.settle(&stored.row)
        try sql.write(stored.row, dirty: .dirty, database)
        flags.wroteLocally = true
        return stored.row.values
    }

    /// Saves a row of a column-merge table: a new row stamps every column; an existing one only
    /// the columns whose value the save changes.
    func saveMerging(_ values: [SyncValue], _ sql: TableSQL) throws -> [String: SyncValue] {
        var row = sql.row(from: values) // checked by ValueCheck: JSON already canonical
        row[ReservedColumn.owner] = .text(store.userID.lowercasedString)
        let id = row[ReservedColumn.id]?.text ?? ""
        if let stored = try writeColumns(row, of: id, sql) { return stored }
        guard let merge = sql.merge else { preconditionFailure("saveMerging on a table without column merge") }
        let stamp = WriteStamp(ms: store.state.nextStamp(), deviceID: store.deviceID)
        var new = RowMerge.Row(values: row, stamps: ColumnStamps(stamping: merge.stamped, with: stamp))
        new.values[ReservedColumn.serverSeq] = .null
        merge.settle(&new)
        try sql.write(new, dirty: .dirty, database)
        flags.wroteLocally = true
        return new.values
    }
}
