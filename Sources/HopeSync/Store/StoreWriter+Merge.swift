import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// A local write to a column-merge table: only the columns whose value changes are stamped, so
/// the write cannot put back another device's values it never changed.
extension StoreWriter {
    /// Writes `changes` to the stored row with `id` as one local write (see
    /// ``writeColumns(_:over:_:)``). Returns the row as stored, or nil when there is no such row.
    @discardableResult
    func writeColumns(_ changes: [String: SyncValue], of id: String, _ sql: TableSQL) throws -> [SyncValue]? {
        guard let merge = sql.merge, let stored = try sql.storedRow(id, database) else { return nil }
        return try writeColumns(merge.changes(changes), over: stored, sql)
    }

    /// Writes `changes` (in table order; nil: the write does not set the column) over `stored` as
    /// one local write: each column whose value changes gets one new stamp from the clock, past
    /// the row's newest; nothing changes, nothing is written. Returns the row as stored, in
    /// table order.
    func writeColumns(_ changes: [SyncValue?], over stored: TableSQL.StoredRow, _ sql: TableSQL) throws -> [SyncValue] {
        guard let merge = sql.merge else { preconditionFailure("writeColumns on a table without column merge") }
        var row = stored.row
        var stamp: WriteStamp?
        for (register, column) in merge.registerColumns.enumerated() {
            guard let value = changes[column], value != stored.row.values[column] else { continue }
            if stamp == nil { stamp = WriteStamp(ms: store.state.nextStamp(after: merge.newest(row)?.ms), deviceID: store.deviceID) }
            row.values[column] = value
            row.stamps[register] = stamp
        }
        guard stamp != nil else { return merge.tableValues(of: stored.row) }
        merge.settle(&row)
        let written = try sql.write(row, dirty: .dirty, database)
        flags.wroteLocally = true
        return written
    }

    /// Saves a row of a column-merge table over `stored` (nil when there is none): a new row
    /// stamps every column; an existing one only the columns whose value the save changes.
    /// Returns the row as stored, in table order.
    func saveMerging(_ values: [SyncValue], over stored: TableSQL.StoredRow?, _ sql: TableSQL) throws -> [SyncValue] {
        guard let merge = sql.merge else { preconditionFailure("saveMerging on a table without column merge") }
        // Checked by ValueCheck: JSON already canonical.
        var new = RowMerge.Row(values: values.map(Optional.some), stamps: [])
        merge.setValue(.text(store.userID.lowercasedString), ReservedColumn.owner, in: &new)
        if let stored { return try writeColumns(new.values, over: stored, sql) }
        merge.stamping(&new, with: WriteStamp(ms: store.state.nextStamp(), deviceID: store.deviceID))
        merge.setValue(.null, ReservedColumn.serverSeq, in: &new)
        if sql.indexByName[ReservedColumn.updatedBy] != nil { merge.setValue(.null, ReservedColumn.updatedBy, in: &new) }
        merge.settle(&new)
        let written = try sql.write(new, dirty: .dirty, database)
        flags.wroteLocally = true
        return written
    }
}
