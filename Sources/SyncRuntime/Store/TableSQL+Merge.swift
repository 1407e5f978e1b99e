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

    /// Writes `row` with its dirty state; returns its values in table order.
    @discardableResult
    func write(_ row: RowMerge.Row, dirty: DirtyState, _ database: Database) throws -> [SyncValue] {
        let statement = try database.cachedStatement(writeRow)
        statement.reset()
        var values: [SyncValue] = []
        values.reserveCapacity(names.count)
        for (index, name) in names.enumerated() {
            values.append(row.values[name] ?? .null)
            try statement.bind(values[index].databaseValue, at: index + 1)
        }
        try statement.bind(.integer(dirty.rawValue), at: names.count + 1)
        try statement.run()
        return values
    }

    func row(from values: [SyncValue]) -> [String: SyncValue] {
        Dictionary(uniqueKeysWithValues: zip(names, values))
    }
}
