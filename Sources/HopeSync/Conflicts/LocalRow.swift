import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// One local row read and written by column name.
enum LocalRow {
    static func values(of key: UUID, _ sql: TableSQL, _ database: Database) throws -> (row: ColumnValues, dirty: Int64)? {
        let names = sql.table.columnNames
        return try database.fetchOne(
            "SELECT \(names.map(quoted).joined(separator: ", ")), _dirty FROM \(sql.quotedName) \(sql.whereKey)",
            [.text(key.lowercasedString)]
        ) { row in
            (
                ColumnValues(columns: names, values: sql.table.columns.enumerated().map { $1.syncValue(row, at: $0) }),
                row.int64(at: names.count)
            )
        }
    }

    /// Sets `values` (columns of the table; others are ignored) on the row, and its `_dirty`.
    static func write(_ values: ColumnValues, to key: UUID, _ sql: TableSQL, _ database: Database, dirty: DirtyState? = nil) throws {
        let known = zip(values.columns, values.values).filter { sql.index(of: $0.0) != nil && $0.0 != sql.table.primaryKey }
        var assignments = known.map { "\(quoted($0.0)) = ?" }
        var arguments = known.map { $0.1.databaseValue }
        if let dirty {
            assignments.append("_dirty = ?")
            arguments.append(.integer(dirty.rawValue))
        }
        guard !assignments.isEmpty else { return }
        try database.execute(
            "UPDATE \(sql.quotedName) SET \(assignments.joined(separator: ", ")) \(sql.whereKey)",
            arguments + [.text(key.lowercasedString)]
        )
    }

    /// Lays the queued writes of the row over it again (after a pulled or returned row replaced
    /// it), so a read shows this device's waiting changes; `_dirty` says whether any wait.
    static func overlayQueuedWrites(on key: UUID, _ sql: TableSQL, _ database: Database) throws {
        let bodies = try database.fetchAll(
            "SELECT body FROM _sync_mutations WHERE table_name = ? AND row_id = ? ORDER BY id",
            [.text(sql.table.name), .text(key.lowercasedString)]
        ) { $0.text(at: 0) ?? "" }
        var merged = ColumnValues(columns: [], values: [])
        for body in bodies { merged = merged.merging(try StoredValues.decode(body)) }
        try write(merged, to: key, sql, database, dirty: bodies.isEmpty ? .clean : .queued)
    }

    /// After a pulled page replaced rows of `table`: a row with a parked write keeps the version
    /// the device saw (so a later write still meets the move), and the rows with queued writes
    /// get them back.
    static func overlayQueuedWrites(in page: [ColumnValues], _ sql: TableSQL, _ database: Database) throws {
        guard let versionColumn = sql.table.conflict.versionColumn else { return }
        let parked = try database.fetchAll(
            "SELECT row_id, base FROM _sync_conflicted WHERE table_name = ? ORDER BY id DESC", [.text(sql.table.name)]
        ) { ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "[]") }
        if !parked.isEmpty {
            let seen = Dictionary(parked, uniquingKeysWith: { _, older in older })
            for row in page {
                guard let id = row[sql.table.primaryKey]?.text, let base = seen[id], let key = UUID(text: id) else { continue }
                try write(try StoredValues.decode(base).subset([versionColumn]), to: key, sql, database)
            }
        }
        let queued = Set(
            try database.fetchAll(
                "SELECT DISTINCT row_id FROM _sync_mutations WHERE table_name = ?", [.text(sql.table.name)]
            ) { $0.text(at: 0) ?? "" })
        guard !queued.isEmpty else { return }
        for row in page {
            if let id = row[sql.table.primaryKey]?.text, queued.contains(id), let key = UUID(text: id) {
                try overlayQueuedWrites(on: key, sql, database)
            }
        }
    }
}
