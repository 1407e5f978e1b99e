import Foundation
import SQLite

/// A local write to a column-merge table: only the columns whose value changes are stamped, so
/// the write cannot put back another device's values it never changed.
extension StoreWriter {
    /// Writes `changes` to the stored row with `id` as one local write (see
    /// ``writeColumns(_:over:_:)``). Returns the row as stored, or nil when there is no such row.
    @discardableResult
    func writeColumns(_ changes: [String: SyncValue], of id: String, _ sql: TableSQL) throws -> [SyncValue]? {
        guard let stored = try sql.storedRow(id, database) else { return nil }
        return try writeColumns(changes, over: stored, sql)
    }

    /// Writes `changes` over `stored` as one local write: each column whose value changes gets one
    /// new stamp from the clock, past the row's newest; nothing changes, nothing is written.
    /// Returns the row as stored, in table order.
    func writeColumns(_ changes: [String: SyncValue], over stored: TableSQL.StoredRow, _ sql: TableSQL) throws -> [SyncValue] {
        guard let merge = sql.merge else { preconditionFailure("writeColumns on a table without column merge") }
        let changed = merge.stamped.filter { column in changes[column].map { $0 != stored.row.values[column] } ?? false }
        guard !changed.isEmpty else { return sql.names.map { stored.row.values[$0] ?? .null } }
        var row = stored.row
        let stamp = WriteStamp(ms: store.state.nextStamp(after: row.stamps.newest?.ms), deviceID: store.deviceID)
        for column in changed {
            row.values[column] = changes[column]
            row.stamps[column] = stamp
        }
        merge.settle(&row)
        let written = try sql.write(row, dirty: .dirty, database)
        flags.wroteLocally = true
        return written
    }

    /// Saves a row of a column-merge table over `stored` (nil when there is none): a new row
    /// stamps every column; an existing one only the columns whose value the save changes.
    /// Returns the row as stored, in table order.
    func saveMerging(_ values: [SyncValue], over stored: TableSQL.StoredRow?, _ sql: TableSQL) throws -> [SyncValue] {
        var row = sql.row(from: values) // checked by ValueCheck: JSON already canonical
        row[ReservedColumn.owner] = .text(store.userID.lowercasedString)
        if let stored { return try writeColumns(row, over: stored, sql) }
        guard let merge = sql.merge else { preconditionFailure("saveMerging on a table without column merge") }
        let stamp = WriteStamp(ms: store.state.nextStamp(), deviceID: store.deviceID)
        var new = RowMerge.Row(values: row, stamps: ColumnStamps(stamping: merge.stamped, with: stamp))
        new.values[ReservedColumn.serverSeq] = .null
        merge.settle(&new)
        let written = try sql.write(new, dirty: .dirty, database)
        flags.wroteLocally = true
        return written
    }
}
