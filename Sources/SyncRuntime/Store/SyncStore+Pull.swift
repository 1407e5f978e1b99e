import Foundation
import SQLite

/// Pulled pages in: the server's rows applied with its comparison, and the cursor moved past them.
extension SyncStore {
    /// The largest server_seq applied (or reported) for `table`.
    func cursor(for table: TableSchema) throws(SyncError) -> Int64 {
        try withWriter { database in
            try database.fetchOne("SELECT server_seq FROM _sync_cursors WHERE table_name = ?", [.text(table.name)]) {
                $0.int64(at: 0)
            } ?? 0
        }
    }

    struct AppliedPage {
        var applied = 0
        var undecodable: [UndecodableRow] = []
        var cursor: Int64 = 0
    }

    /// Applies a pulled page with the server's comparison and moves the cursor, in one
    /// transaction. A row SQLite refuses is reported, not applied, and does not stop the others.
    func apply(_ page: PulledPage, to table: TableSchema) throws(SyncError) -> AppliedPage {
        try apply([page], to: table)
    }

    /// Applies consecutive pages of one table, and moves the cursor past them, in one transaction.
    func apply(_ pages: [PulledPage], to table: TableSchema) throws(SyncError) -> AppliedPage {
        let sql = try tableSQL(table.name)
        let names = table.columnNames
        let stampIndex = sql.index(of: ReservedColumn.updatedMs)
        let rule = table.openRowRule.flatMap { rule in
            sql.index(of: rule.end).map { (end: $0, deleted: sql.index(of: ReservedColumn.deletedMs)) }
        }
        var result = AppliedPage(undecodable: pages.flatMap(\.undecodable))
        let outcome = try writeTransaction { database in
            try observeServerTime(pages.compactMap(\.serverTimeMs).last, database)
            let statement = try database.cachedStatement(sql.applyServerRow)
            var newest: Int64 = 0
            var openArrived = false
            for row in pages.lazy.flatMap(\.rows) {
                let values = row.columns == names ? row.values : names.map { row[$0] ?? .null }
                do {
                    if try applyServerRow(values, sql, statement, database) { result.applied += 1 }
                } catch {
                    result.undecodable.append(
                        UndecodableRow(
                            table: table.name, key: values.first.flatMap(\.text),
                            serverSeq: row[ReservedColumn.serverSeq].flatMap(\.int),
                            reason: "the local database refused it: \(error)"
                        ))
                    continue
                }
                if let stampIndex, case .int(let stamp) = values[stampIndex] { newest = max(newest, stamp) }
                if let rule, values[rule.end] == .null, rule.deleted.map({ values[$0] == .null }) ?? true { openArrived = true }
            }
            for page in pages { try guardedWrites.restoreQueuedWrites(over: page.rows, sql, database) }
            let cursor = max(try currentCursor(table, database), pages.compactMap(\.lastServerSeq).max() ?? 0)
            try database.execute(
                "INSERT INTO _sync_cursors (table_name, server_seq) VALUES (?, ?) ON CONFLICT (table_name) DO UPDATE SET server_seq = excluded.server_seq",
                [.text(table.name), .integer(cursor)]
            )
            result.cursor = cursor
            state.clock.observe(newest, wallMs: state.wallClock())
            let writer = StoreWriter(reader: StoreReader(store: self, database: database))
            if openArrived { try writer.enforceOpenRowRule(sql, owner: userID) }
            return (result, writer.wroteLocally)
        }
        if outcome.0.applied > 0 || outcome.1 { state.notifyObservers() }
        if outcome.1 { state.localWriteHandler?() }
        return outcome.0
    }

    /// One row as the server holds it, applied with the server's comparison (`statement` is
    /// ``TableSQL/applyServerRow``): a newer row replaces the local one, a column-merge row is
    /// merged column by column, and anything older changes nothing. Returns whether it changed
    /// any value.
    func applyServerRow(_ values: [SyncValue], _ sql: TableSQL, _ statement: Statement, _ database: Database) throws -> Bool {
        if sql.merge != nil { return try applyMerging(values, sql, insertingWith: statement, database) }
        statement.reset()
        for (offset, value) in values.enumerated() { try statement.bind(value.databaseValue, at: offset + 1) }
        try statement.run()
        return database.changes > 0
    }

    /// A pulled row of a column-merge table, merged into the local one. The local row stays
    /// dirty while it still holds a write the pulled row does not (a stamp newer than the
    /// pulled one). Returns whether the pulled row changed any value.
    private func applyMerging(
        _ values: [SyncValue], _ sql: TableSQL, insertingWith insert: Statement, _ database: Database
    ) throws -> Bool {
        guard let merge = sql.merge else { return false }
        insert.reset()
        for (offset, value) in values.enumerated() { try insert.bind(value.databaseValue, at: offset + 1) }
        try insert.run()
        if database.changes > 0 { return true }
        let pulled = merge.row(tableValues: values)
        guard let local = try sql.storedRow(merge.value(ReservedColumn.id, in: pulled)?.text ?? "", database) else { return false }
        let holdsMore = merge.stamped.indices.contains { register in
            guard let mine = local.row.stamps[register] else { return false }
            return pulled.stamps[register].map { mine > $0 } ?? true
        }
        let dirty: DirtyState = local.dirty == .dirty && !holdsMore ? .clean : local.dirty
        let serverSeq = merge.value(ReservedColumn.serverSeq, in: pulled) ?? .null
        guard var merged = merge.merge(pulled, into: local.row) else {
            // Nothing newer that this build holds (this device's own write coming back, or a
            // newer schema's column): the sequence number, the row's pair and whether the row
            // still waits can change.
            var row = local.row
            merge.setValue(serverSeq, ReservedColumn.serverSeq, in: &row)
            Self.keepNewestPair(&row, pulled, merge)
            guard dirty != local.dirty || row != local.row else { return false }
            try sql.write(row, dirty: dirty, database)
            return false
        }
        merge.setValue(serverSeq, ReservedColumn.serverSeq, in: &merged)
        Self.keepNewestPair(&merged, pulled, merge)
        try sql.write(merged, dirty: dirty, database)
        return true
    }

    /// A row's pair is its newest write's, which may be a write of a column this build does not
    /// hold: the pulled row's pair when that is newer.
    private static func keepNewestPair(_ row: inout RowMerge.Row, _ pulled: RowMerge.Row, _ merge: RowMerge) {
        guard merge.pair(of: pulled) > merge.pair(of: row) else { return }
        merge.setValue(merge.value(ReservedColumn.updatedMs, in: pulled), ReservedColumn.updatedMs, in: &row)
        merge.setValue(merge.value(ReservedColumn.deviceId, in: pulled), ReservedColumn.deviceId, in: &row)
    }

    private func currentCursor(_ table: TableSchema, _ database: Database) throws -> Int64 {
        try database.fetchOne("SELECT server_seq FROM _sync_cursors WHERE table_name = ?", [.text(table.name)]) {
            $0.int64(at: 0)
        } ?? 0
    }

    /// Tables whose local migration added columns: pulled again from the start before anything
    /// of theirs is pushed, so the device shows the server's values of the new columns.
    func tablesAwaitingRepull() throws(SyncError) -> [TableSchema] {
        let keys = Set(
            try withWriter { database in
                try database.fetchAll("SELECT key FROM _sync_meta WHERE key LIKE 'repull:%'") { $0.text(at: 0) ?? "" }
            })
        return schema.tables.filter { keys.contains(StoreMigrator.repullKey($0.name)) }
    }

    func finishRepull(of tables: [TableSchema]) throws(SyncError) {
        try withWriter { database in
            for table in tables {
                try database.execute("DELETE FROM _sync_meta WHERE key = ?", [.text(StoreMigrator.repullKey(table.name))])
            }
        }
    }
}
