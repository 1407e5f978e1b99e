import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Typed reads inside `store.read { … }` or `store.write { … }`. Soft-deleted rows are
/// left out unless asked for. The local database's failures are `SyncError`s; a row that does not
/// decode as the asked type throws its decoding error.
public struct StoreReader {
    let store: SyncStore
    let database: Database

    /// The row with `id`, deleted or not; nil when there is none.
    public func fetchOne<Record: SyncRecord>(_ type: Record.Type, id: UUID) throws -> Record? {
        let sql = try store.tableSQL(Record.table.name)
        return try SyncError.reportingSQLite {
            try database.fetchOne(sql.selectByID, [.text(id.lowercasedString)]) { row in try decode(Record.self, row, sql) }
        }
    }

    /// Rows matching `condition` (an SQL expression over the table's columns, with `?` for each
    /// of `arguments`), ordered by `orderBy` (for example "started_ms DESC").
    public func fetchAll<Record: SyncRecord>(
        _ type: Record.Type,
        where condition: String? = nil,
        _ arguments: [SyncValue] = [],
        orderBy: String? = nil,
        includingDeleted: Bool = false
    ) throws -> [Record] {
        let sql = try store.tableSQL(Record.table.name)
        let query = sql.select + clauses(sql.table, condition, orderBy: orderBy, includingDeleted: includingDeleted)
        return try SyncError.reportingSQLite {
            try database.fetchAll(query, arguments.map(\.databaseValue)) { row in try decode(Record.self, row, sql) }
        }
    }

    /// How many rows match `condition`.
    public func fetchCount<Record: SyncRecord>(
        _ type: Record.Type,
        where condition: String? = nil,
        _ arguments: [SyncValue] = [],
        includingDeleted: Bool = false
    ) throws(SyncError) -> Int {
        let table = Record.table
        let query =
            "SELECT count(*) FROM \(quoted(table.name))"
            + clauses(table, condition, orderBy: nil, includingDeleted: includingDeleted)
        return try SyncError.local { try database.fetchOne(query, arguments.map(\.databaseValue)) { Int($0.int64(at: 0)) } ?? 0 }
    }

    /// Every row of `table` (deleted ones too) with every column, as the server holds them.
    public func rowValues(of table: String) throws(SyncError) -> [ColumnValues] {
        let sql = try store.tableSQL(table)
        let names = sql.names
        return try SyncError.local {
            try database.fetchAll(sql.select) { row in
                ColumnValues(columns: names, values: sql.values(of: row))
            }
        }
    }

    /// Rows waiting to be pushed, over every table.
    public func dirtyCount() throws(SyncError) -> Int {
        try SyncError.local {
            try store.schema.tables.reduce(0) { count, table in
                count
                    + (try database.fetchOne(
                        "SELECT count(*) FROM \(quoted(table.name)) WHERE _dirty = \(DirtyState.dirty.sql)"
                    ) { Int($0.int64(at: 0)) } ?? 0)
            }
        }
    }

    func decode<Record: SyncRecord>(_ type: Record.Type, _ row: Row, _ sql: TableSQL) throws -> Record {
        try sql.record(Record.self, from: sql.values(of: row))
    }

    private func clauses(_ table: TableSchema, _ condition: String?, orderBy: String?, includingDeleted: Bool) -> String {
        var conditions: [String] = []
        if let condition { conditions.append("(\(condition))") }
        if !includingDeleted, table.column(named: ReservedColumn.deletedMs) != nil { conditions.append("deleted_ms IS NULL") }
        var result = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        if let orderBy { result += " ORDER BY \(orderBy)" }
        return result
    }
}
