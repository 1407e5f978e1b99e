import Foundation
import SQLite

/// A local write to a column-merge table: only the columns whose value changes are stamped, so
/// the write cannot put back another device's values it never changed.
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
