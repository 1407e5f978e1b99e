import Foundation
import HopeSyncModel

/// The statements the store runs against one synced table, written once from its schema (a class:
/// every save and read looks its table's up, and a reference is one retain, not one a field).
final class TableSQL: Sendable {
    let table: TableSchema
    /// The column names in table order (``TableSchema/columnNames`` makes a new array each time).
    let names: [String]
    /// Column indexes by name, for decoding and for the roles below.
    let indexByName: [String: Int]
    /// Every column but those only the server writes (server_seq, updated_by), in table order:
    /// what a push sends and a local save writes.
    let pushedColumns: [ColumnSchema]
    /// Where each pushed column sits in the table's columns.
    let pushedIndexes: [Int]

    /// The table's name, quoted for SQL.
    let quotedName: String
    /// The condition that picks one row by its key, bound to one parameter.
    let whereKey: String
    let select: String
    let selectByID: String
    let saveLocal: String
    let applyRemote: String
    let selectDirty: String
    let clearDirty: String?
    let markRejected: String?
    let markRejectedUnguarded: String
    /// Column merge (nil for other tables): the rule, and a row with its dirty state by key.
    let merge: RowMerge?
    let selectForMerge: String
    let writeRow: String
    /// A pulled row of a column-merge table that this device does not have yet (most rows of a
    /// first sync): inserted as it came, with no merge to do.
    let insertIfAbsent: String
    /// The file columns, with their places in the table's columns (a save registers their files).
    let fileColumns: [(index: Int, column: ColumnSchema, bucket: String)]
    /// What a save checks in each column (``ValueCheck``).
    let valueChecks: [ValueCheck.Column]

    /// The statement a row from the server goes through first: the guarded upsert, or for
    /// column merge the insert of a row this device lacks (one it has is merged in Swift).
    var applyServerRow: String { merge == nil ? applyRemote : insertIfAbsent }

    init(_ table: TableSchema) {
        self.table = table
        names = table.columnNames
        indexByName = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        pushedColumns = table.columns.filter { !$0.role.isWrittenByServerOnly }
        pushedIndexes = table.columns.indices.filter { !table.columns[$0].role.isWrittenByServerOnly }
        fileColumns = table.columns.enumerated().compactMap { index, column in column.type.bucket.map { (index, column, $0) } }
        valueChecks = table.columns.map(ValueCheck.Column.init)
        let t = quoted(table.name)
        let list = names.map(quoted).joined(separator: ", ")
        let id = quoted(table.primaryKey)
        let (clean, dirty, rejected, queued) = (DirtyState.clean.sql, DirtyState.dirty.sql, DirtyState.rejected.sql, DirtyState.queued.sql)
        quotedName = t
        whereKey = "WHERE \(id) = ?"

        select = "SELECT \(list) FROM \(t)"
        selectByID = "\(select) \(whereKey)"

        // A local save never moves server-owned columns (server_seq, updated_by, the version).
        let saved = pushedColumns
        let savedList = saved.map { quoted($0.name) }.joined(separator: ", ")
        let savedUpdates = saved.filter { $0.role != .id && $0.role != .version }
            .map { "\(quoted($0.name)) = excluded.\(quoted($0.name))" }
        saveLocal = """
            INSERT INTO \(t) (\(savedList), _dirty) VALUES (\(placeholders(saved.count)), \(dirty))
            ON CONFLICT (\(id)) DO UPDATE SET \((savedUpdates + ["_dirty = \(dirty)"]).joined(separator: ", "))
            """

        // The server's comparison decides: a newer pair replaces the row (dirty or not); an equal
        // pair refreshes a clean row's server_seq; anything older, or a repeat, changes nothing.
        let allUpdates =
            table.columns.filter { $0.role != .id }
            .map { "\(quoted($0.name)) = excluded.\(quoted($0.name))" } + ["_dirty = \(clean)"]
        let guardClause: String
        switch table.conflict {
        case .lww:
            guardClause = """
                (excluded.updated_ms, excluded.device_id) > (\(t).updated_ms, \(t).device_id)
                OR ((excluded.updated_ms, excluded.device_id) = (\(t).updated_ms, \(t).device_id)
                    AND \(t)._dirty = \(clean) AND excluded.server_seq IS NOT \(t).server_seq)
                """
        case .version:
            // A row with queued guarded writes takes the pulled row too; the store lays the
            // queued writes over it again (their bases stay as they were).
            guardClause = "\(t)._dirty IN (\(clean), \(queued)) AND excluded.server_seq IS NOT \(t).server_seq"
        }
        applyRemote = """
            INSERT INTO \(t) (\(list), _dirty) VALUES (\(placeholders(names.count)), \(clean))
            ON CONFLICT (\(id)) DO UPDATE SET \(allUpdates.joined(separator: ", ")) WHERE \(guardClause)
            """

        let pushedList = pushedColumns.map { quoted($0.name) }.joined(separator: ", ")
        // A row waits while a file it names is still to upload: no row may name an object the
        // server lacks.
        selectDirty =
            "SELECT rowid, \(pushedList) FROM \(t) WHERE _dirty = \(dirty)\(Self.filesUploaded(table)) AND rowid > ? ORDER BY rowid LIMIT ?"
        if table.column(named: ReservedColumn.updatedMs) != nil {
            clearDirty = "UPDATE \(t) SET _dirty = \(clean) \(whereKey) AND _dirty = \(dirty) AND updated_ms = ?"
            markRejected = "UPDATE \(t) SET _dirty = \(rejected) \(whereKey) AND _dirty = \(dirty) AND updated_ms = ?"
        } else {
            clearDirty = nil
            markRejected = nil
        }
        markRejectedUnguarded = "UPDATE \(t) SET _dirty = \(rejected) \(whereKey) AND _dirty = \(dirty)"

        merge = table.mergesColumns ? RowMerge(table) : nil
        // Writes every column and the dirty state: a merged row, or the server's copy of a row.
        selectForMerge = "SELECT \(list), _dirty FROM \(t) \(whereKey)"
        let everyUpdate = table.columns.filter { $0.role != .id }.map { "\(quoted($0.name)) = excluded.\(quoted($0.name))" }
        insertIfAbsent = "INSERT INTO \(t) (\(list), _dirty) VALUES (\(placeholders(names.count)), \(clean)) ON CONFLICT (\(id)) DO NOTHING"
        writeRow = """
            INSERT INTO \(t) (\(list), _dirty) VALUES (\(placeholders(names.count + 1)))
            ON CONFLICT (\(id)) DO UPDATE SET \((everyUpdate + ["_dirty = excluded._dirty"]).joined(separator: ", "))
            """
    }

    func index(of column: String) -> Int? { indexByName[column] }
}

func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

private func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}
