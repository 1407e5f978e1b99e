import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Dirty rows out, and the server's copy of them back in: a pushed row ends as the server holds
/// it, whatever the server's rules made of it (a column that lost, a row the open-row rule
/// closed), so the device never shows as synced a value the server does not hold.
extension SyncStore {
    struct DirtyRow {
        let rowID: Int64
        /// The row as stored (every column but server_seq).
        let values: ColumnValues
        /// The row as it is sent: as stored, but for stamps the server would refuse to get back.
        let sent: ColumnValues
    }

    /// Up to `limit` dirty rows of `table` after `rowID`, as whole rows without server_seq.
    func dirtyRows(in table: TableSchema, after rowID: Int64, limit: Int) throws(SyncError) -> [DirtyRow] {
        let sql = try tableSQL(table.name)
        let names = sql.pushedColumns.map(\.name)
        return try withWriter { database in
            let line = state.clock.refusalLine(wallMs: state.wallClock())
            return try database.fetchAll(sql.selectDirty, [.integer(rowID), .integer(Int64(limit))]) { row in
                let values = ColumnValues(columns: names, values: sql.pushedColumns.enumerated().map { $1.syncValue(row, at: $0 + 1) })
                var sent = values
                if let merge = sql.merge, let pair = values[ReservedColumn.updatedMs]?.int, pair > line {
                    sent = withoutForeignStamps(pastLine: line, values, merge)
                }
                return DirtyRow(rowID: row.int64(at: 0), values: values, sent: sent)
            }
        }
    }

    /// A row as it is sent, without other devices' stamps past the server's limit (a row from
    /// before the server had one, or from a server whose clock went back): the server holds them
    /// already, and sent back they would have it refuse the whole row (22008). The columns they
    /// stamp are not claimed, so the server keeps its values there; the row's pair is its newest
    /// stamp left.
    private func withoutForeignStamps(pastLine line: Int64, _ row: ColumnValues, _ merge: RowMerge) -> ColumnValues {
        var values = Dictionary(uniqueKeysWithValues: zip(row.columns, row.values))
        var stamps = merge.stamps(of: values)
        stamps.stamps = stamps.stamps.filter { $0.value.deviceID == deviceID || $0.value.ms <= line }
        guard let newest = stamps.newest else { return row }
        values[ReservedColumn.columnStamps] = .text(stamps.json)
        values[ReservedColumn.updatedMs] = .int(newest.ms)
        values[ReservedColumn.deviceId] = .text(newest.deviceID)
        return ColumnValues(columns: row.columns, values: row.columns.map { values[$0] ?? .null })
    }

    /// The server took `sent`; `server` holds its copy of each (every column). A row not written
    /// again since it was sent becomes the server's copy, clean; one written meanwhile takes the
    /// server's copy as a pulled row and stays dirty for what it holds that is newer. A sent row
    /// without a server copy is left as it is (still dirty).
    func settlePushed(_ sent: [ColumnValues], server: [ColumnValues], serverTimeMs: Int64?, in table: TableSchema) throws(SyncError) {
        let sql = try tableSQL(table.name)
        let names = table.columnNames
        let held = Dictionary(server.map { ($0[table.primaryKey]?.text ?? "", $0) }, uniquingKeysWith: { _, last in last })
        let stampIndex = sql.index(of: ReservedColumn.updatedMs)
        try writeTransaction { database in
            try observeServerTime(serverTimeMs, database)
            let apply = try database.cachedStatement(sql.applyServerRow)
            let replace = try database.cachedStatement(sql.writeRow)
            var newest: Int64 = 0
            for row in sent {
                let id = row.values[0]
                guard let copy = held[id.text ?? ""] else { continue }
                let values = copy.columns == names ? copy.values : names.map { copy[$0] ?? .null }
                if try currentPushedValues(of: id.databaseValue, sql, database) == row.values {
                    try replace.execute(values.map(\.databaseValue) + [.integer(DirtyState.clean.rawValue)])
                } else if let version = table.conflict.versionColumn, let index = sql.index(of: version) {
                    // Written again while the push was out: the row keeps its values and waits,
                    // now at the version the server gave it, so that its next push is taken
                    // only if nobody wrote in between (a whole row naming an older version
                    // changes nothing on the server).
                    try database.execute(
                        "UPDATE \(sql.quotedName) SET \(quoted(version)) = ? \(sql.whereKey) AND _dirty = \(DirtyState.dirty.sql)",
                        [values[index].databaseValue, id.databaseValue])
                } else {
                    _ = try applyServerRow(values, sql, apply, database)
                }
                if let stampIndex, case .int(let stamp) = values[stampIndex] { newest = max(newest, stamp) }
            }
            try guardedWrites.restoreQueuedWrites(over: server, sql, database)
            state.clock.observe(newest, wallMs: state.wallClock())
        }
        state.notifyObservers()
    }

    /// After the server refused this device's claims as too far past its clock (22008): every
    /// stamp of this device on a dirty row of `tables` that is past what the server takes, now
    /// that the clock follows the server's, is replaced by a new one (in their order), so the
    /// writes go again as made now: at the server's time, or just past the newest stamp the
    /// store holds that the server would take, never at the edge of what it takes (a claim a day
    /// ahead would beat every edit made elsewhere that day, and drag every device that pulls it
    /// a day ahead). Returns whether any was replaced.
    func restampClaimsPastServerClock(in tables: [TableSchema]) throws(SyncError) -> Bool {
        let changed = try writeTransaction { database in
            let line = state.clock.refusalLine(wallMs: state.wallClock())
            state.clock.forgetStamps(after: try newestStamp(notPast: line, database))
            var changed = false
            for table in tables where table.column(named: ReservedColumn.updatedMs) != nil {
                let sql = try tableSQL(table.name)
                // A row's pair is its newest stamp: a row with a stamp past the line has its pair there.
                let ids = try database.fetchAll(
                    "SELECT id FROM \(sql.quotedName) WHERE _dirty = \(DirtyState.dirty.sql) AND updated_ms > ?", [.integer(line)]
                ) { $0.text(at: 0) ?? "" }
                for id in ids {
                    changed = try restamp(id, past: line, sql, database) || changed
                }
            }
            try persistClock(database)
            return changed
        }
        if changed {
            state.notifyObservers()
            state.localWriteHandler?()
        }
        return changed
    }

    /// The newest row pair of any synced table that is not past `line`.
    private func newestStamp(notPast line: Int64, _ database: Database) throws -> Int64 {
        var newest: Int64 = 0
        for table in schema.tables where table.column(named: ReservedColumn.updatedMs) != nil {
            let stamp = try database.fetchOne(
                "SELECT max(updated_ms) FROM \(quoted(table.name)) WHERE updated_ms <= ?", [.integer(line)]
            ) { $0.int64(at: 0) }
            newest = max(newest, stamp ?? 0)
        }
        return newest
    }

    /// Replaces this device's stamps past `line` on one row with new ones, oldest first.
    private func restamp(_ id: String, past line: Int64, _ sql: TableSQL, _ database: Database) throws -> Bool {
        guard let merge = sql.merge else {
            try database.execute(
                "UPDATE \(sql.quotedName) SET updated_ms = ? \(sql.whereKey) AND device_id = ?",
                [.integer(state.nextStamp()), .text(id), .text(deviceID)])
            return database.changes > 0
        }
        guard var stored = try sql.storedRow(id, database) else { return false }
        var stamps = merge.columnStamps(of: stored.row)
        let future = Set(stamps.stamps.values.filter { $0.deviceID == deviceID && $0.ms > line }).sorted()
        guard !future.isEmpty else { return false }
        let replacements = Dictionary(uniqueKeysWithValues: future.map { ($0, WriteStamp(ms: state.nextStamp(), deviceID: deviceID)) })
        for (column, stamp) in stamps.stamps {
            if let replacement = replacements[stamp] { stamps[column] = replacement }
        }
        merge.setStamps(stamps, in: &stored.row)
        merge.settle(&stored.row)
        try sql.write(stored.row, dirty: .dirty, database)
        return true
    }

    private func currentPushedValues(of id: DatabaseValue, _ sql: TableSQL, _ database: Database) throws -> [SyncValue]? {
        let list = sql.pushedColumns.map { quoted($0.name) }.joined(separator: ", ")
        return try database.fetchOne("SELECT \(list) FROM \(sql.quotedName) \(sql.whereKey)", [id]) { row in
            sql.pushedColumns.enumerated().map { $1.syncValue(row, at: $0) }
        }
    }
}
