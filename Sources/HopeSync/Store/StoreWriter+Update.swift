import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Editing a row in place: the read, the edit and the save of what changed, in one call.
extension StoreWriter {
    /// Edits the row with `id`: reads it once, hands it to `edit`, and saves what the edit changed
    /// as ``save(_:)`` saves it: past the row it edits on the clock, and, in a table that merges
    /// column by column, stamping only the columns whose value changes. An edit that changes none
    /// of the row's own columns writes nothing. A soft-deleted row is edited like any other (and an
    /// edit newer than the delete brings it back, as a save would).
    ///
    /// Returns the row as stored after the edit, or nil when there is no row with `id`: a row
    /// another device never synced here, or one this device cleared, is an answer, not a failure
    /// that would roll back the rest of the write. `edit` may not change the row's id; what it
    /// throws rolls the write back and passes as it is.
    @discardableResult
    public func update<Record: SyncRecord>(_ type: Record.Type, id: UUID, _ edit: (inout Record) throws -> Void) throws -> Record? {
        try SyncError.reportingSQLite {
            let sql = try writableTableSQL(Record.table)
            let key = id.lowercasedString
            if sql.merge != nil {
                guard let stored = try sql.storedRow(key, database) else { return nil }
                let before = try sql.record(Record.self, from: stored.row.values.map { $0 ?? .null })
                let values = try checkedValues(of: try edited(before, id: id, edit), sql)
                try refuseReadOnlyScope(of: sql, id: key, values: values)
                return try saveMerging(values, over: stored, sql, as: Record.self)
            }
            guard let stored = try database.fetchOne(sql.selectByID, [.text(key)], sql.values(of:))
            else { return nil }
            let before = try sql.record(Record.self, from: stored)
            let values = try checkedValues(of: try edited(before, id: id, edit), sql)
            try refuseReadOnlyScope(of: sql, id: key, values: values)
            guard sql.table.columns.indices.contains(where: { sql.table.columns[$0].role.isStamped && values[$0] != stored[$0] }) else {
                return before
            }
            let storedMs = sql.index(of: ReservedColumn.updatedMs).flatMap { stored[$0].int }
            return try saveWholeRow(values, sql, id: id, over: storedMs)
        }
    }

    private func edited<Record: SyncRecord>(_ row: Record, id: UUID, _ edit: (inout Record) throws -> Void) throws -> Record {
        var row = row
        try edit(&row)
        guard row.id == id else { throw SyncError(.invalidRequest, "An update of \(Record.table.name) cannot change the row's id") }
        return row
    }
}
