import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// How the store reads and writes rows of column-merge tables, with their stamps, so a save, a
/// delete, a close and a pulled row all go through ``RowMerge``.
extension TableSQL {
    struct StoredRow {
        var row: RowMerge.Row
        var dirty: DirtyState
    }

    func storedRow(_ id: String, _ database: Database) throws -> StoredRow? {
        guard let merge else { return nil }
        let statement = try database.cachedStatement(selectForMerge)
        return try statement.first([.text(id)]) { row in
            StoredRow(
                row: merge.row(tableValues: table.columns.enumerated().map { index, column in column.syncValue(row, at: index) }),
                dirty: DirtyState(rawValue: row.int64(at: table.columns.count)) ?? .dirty
            )
        }
    }

    /// Writes `row` with its dirty state; returns its values in table order.
    @discardableResult
    func write(_ row: RowMerge.Row, dirty: DirtyState, _ database: Database) throws -> [SyncValue] {
        let statement = try database.cachedStatement(writeRow)
        statement.reset()
        let values = row.values.map { $0 ?? .null }
        for (index, value) in values.enumerated() { try statement.bind(value.databaseValue, at: index + 1) }
        try statement.bind(.integer(dirty.rawValue), at: names.count + 1)
        try statement.run()
        return values
    }
}
