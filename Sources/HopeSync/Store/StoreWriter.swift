import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Typed writes inside `store.write { … }`: each write is stamped (updated_ms from the hybrid
/// clock, device_id, user_id) and marked dirty for the next push. The local database's failures
/// are `SyncError`s; a row that does not encode throws its encoding error.
public struct StoreWriter {
    public let reader: StoreReader
    let flags = Flags()

    init(reader: StoreReader) {
        self.reader = reader
    }

    var wroteLocally: Bool { flags.wroteLocally }
    var store: SyncStore { reader.store }
    var database: Database { reader.database }

    /// The table's SQL, for a local write: refused for a table the server alone writes (a scope's
    /// membership table), whose local edits would wait for a push that never sends them.
    func writableTableSQL(_ table: TableSchema) throws(SyncError) -> TableSQL {
        guard !table.isWrittenByServer else {
            throw SyncError(
                .invalidRequest,
                "The table \(table.name) is written by the server alone: a membership changes through a request to the server, not a local save."
            )
        }
        return try store.tableSQL(table.name)
    }

    /// Inserts or updates `record` and returns it stamped (user_id, updated_ms, device_id). The
    /// server-owned columns (server_seq, updated_by, the version) keep their stored values on an
    /// update.
    @discardableResult
    public func save<Record: SyncRecord>(_ record: Record) throws -> Record {
        try SyncError.reportingSQLite {
            let sql = try writableTableSQL(Record.table)
            let values = try checkedValues(of: record, sql)
            try refuseReadOnlyScope(of: sql, id: record.id.lowercasedString, values: values)
            guard sql.merge != nil else {
                return try saveWholeRow(values, sql, id: record.id, over: try storedUpdatedMs(.text(record.id.lowercasedString), sql))
            }
            return try saveMerging(values, over: try sql.storedRow(record.id.lowercasedString, database), sql, as: Record.self)
        }
    }

    /// A record's values as a save stores them (checked, JSON and timestamps canonical), with
    /// the files they name registered for upload (again, when the row changes folder).
    func checkedValues<Record: SyncRecord>(of record: Record, _ sql: TableSQL) throws -> [SyncValue] {
        var values = try sql.columnValues(of: record)
        try ValueCheck.check(&values, sql.valueChecks, of: sql.table)
        try registerFiles(values, sql)
        try requeueFilesOfMovedRow(values, sql)
        return values
    }

    /// Saves a row of a column-merge table over `stored` (nil: there is none), and returns it as stored.
    func saveMerging<Record: SyncRecord>(
        _ values: [SyncValue], over stored: TableSQL.StoredRow?, _ sql: TableSQL, as type: Record.Type
    ) throws -> Record {
        let saved = try saveMerging(values, over: stored, sql)
        if let rule = sql.table.openRowRule, isOpen(saved, rule, sql) { try enforceOpenRowRule(sql, owner: store.userID) }
        return try sql.record(Record.self, from: saved)
    }

    /// Saves row `id` of any other table, stamped past `storedMs` (the stored row's updated_ms),
    /// and returns it as stored.
    func saveWholeRow<Record: SyncRecord>(_ values: [SyncValue], _ sql: TableSQL, id: UUID, over storedMs: Int64?) throws -> Record {
        var values = values
        stamp(&values, sql, over: storedMs)
        if try store.guardedWrites.queueUpdate(values, sql, filters: [], in: self) {
            flags.wroteLocally = true
            return try fetchOne(Record.self, id: id) ?? sql.record(Record.self, from: values)
        }
        try database.execute(sql.saveLocal, sql.pushedIndexes.map { values[$0].databaseValue })
        flags.wroteLocally = true
        if let rule = sql.table.openRowRule, isOpen(values, rule, sql) {
            try enforceOpenRowRule(sql, owner: store.userID)
        }
        return try sql.record(Record.self, from: values)
    }

    /// Updates a synced row of a version table as a conditional edit: its replay applies only
    /// while the server's row is at the version this device saw and still meets `conditions`
    /// (when it no longer does, the write has nothing to change and leaves the queue).
    @discardableResult
    public func save<Record: SyncRecord>(_ record: Record, onlyIf conditions: [Filter]) throws -> Record {
        let sql = try writableTableSQL(Record.table)
        var values = try SyncError.reportingSQLite { try checkedValues(of: record, sql) }
        try refuseReadOnlyScope(of: sql, id: record.id.lowercasedString, values: values)
        let queued = try SyncError.local {
            stamp(&values, sql, over: try storedUpdatedMs(.text(record.id.lowercasedString), sql))
            return try store.guardedWrites.queueUpdate(values, sql, filters: conditions, in: self)
        }
        guard queued else {
            throw SyncError(.invalidRequest, "A conditional edit needs a row of a version table this device has synced")
        }
        flags.wroteLocally = true
        return try fetchOne(Record.self, id: record.id) ?? record
    }

    /// Marks the row with `id` deleted (a soft delete: a write like any other, which can lose to
    /// a newer one). Returns false when there is no such row.
    @discardableResult
    public func delete<Record: SyncRecord>(_ type: Record.Type, id: UUID) throws(SyncError) -> Bool {
        let sql = try writableTableSQL(Record.table)
        try refuseReadOnlyScope(of: sql, id: id.lowercasedString, values: nil)
        return try SyncError.local { try softDelete(id, sql) }
    }

    @discardableResult
    public func delete<Record: SyncRecord>(_ record: Record) throws(SyncError) -> Bool {
        try delete(Record.self, id: record.id)
    }

    private func softDelete(_ id: UUID, _ sql: TableSQL) throws -> Bool {
        let key = DatabaseValue.text(id.lowercasedString)
        if sql.merge != nil {
            return try writeColumns([ReservedColumn.deletedMs: .int(store.state.now())], of: id.lowercasedString, sql) != nil
        } else if sql.table.conflict == .lww {
            let stamp = store.state.nextStamp(after: try storedUpdatedMs(key, sql))
            try database.execute(
                "UPDATE \(sql.quotedName) SET deleted_ms = ?, updated_ms = ?, device_id = ?, _dirty = \(DirtyState.dirty.sql) \(sql.whereKey)",
                [.integer(stamp), .integer(stamp), .text(store.deviceID), key]
            )
        } else if try store.guardedWrites.queueDelete(id, sql, in: self) {
            flags.wroteLocally = true
            return true
        } else {
            try database.execute(
                "UPDATE \(sql.quotedName) SET deleted_ms = ?, _dirty = \(DirtyState.dirty.sql) \(sql.whereKey)",
                [.integer(store.state.now()), key]
            )
        }
        let found = database.changes > 0
        flags.wroteLocally = flags.wroteLocally || found
        return found
    }

    // Reads see this transaction's writes.
    public func fetchOne<Record: SyncRecord>(_ type: Record.Type, id: UUID) throws -> Record? {
        try reader.fetchOne(type, id: id)
    }

    public func fetchAll<Record: SyncRecord>(
        _ type: Record.Type, where condition: String? = nil, _ arguments: [SyncValue] = [],
        orderBy: String? = nil, includingDeleted: Bool = false
    ) throws -> [Record] {
        try reader.fetchAll(type, where: condition, arguments, orderBy: orderBy, includingDeleted: includingDeleted)
    }

    public func fetchCount<Record: SyncRecord>(
        _ type: Record.Type, where condition: String? = nil, _ arguments: [SyncValue] = [], includingDeleted: Bool = false
    ) throws(SyncError) -> Int {
        try reader.fetchCount(type, where: condition, arguments, includingDeleted: includingDeleted)
    }

    /// Stamps a whole-row write: past the row's stored pair (`stored`, its updated_ms), so the edit
    /// wins over what this device has seen of the row.
    private func stamp(_ values: inout [SyncValue], _ sql: TableSQL, over stored: Int64?) {
        for (index, column) in sql.table.columns.enumerated() {
            switch column.role {
            case .owner: values[index] = .text(store.userID.lowercasedString)
            case .updatedMs: values[index] = .int(store.state.nextStamp(after: stored))
            case .deviceId: values[index] = .text(store.deviceID)
            default: break
            }
        }
    }

    /// The stored row's `updated_ms`, for tables that have one.
    private func storedUpdatedMs(_ key: DatabaseValue, _ sql: TableSQL) throws -> Int64? {
        guard sql.index(of: ReservedColumn.updatedMs) != nil else { return nil }
        return try database.fetchOne("SELECT updated_ms FROM \(sql.quotedName) \(sql.whereKey)", [key]) { $0.int64(at: 0) }
    }

    private func isOpen(_ values: [SyncValue], _ rule: OpenRowRule, _ sql: TableSQL) -> Bool {
        guard let end = sql.index(of: rule.end) else { return false }
        return OpenRowRule.isOpen(end: values[end], deleted: sql.index(of: ReservedColumn.deletedMs).map { values[$0] })
    }

    /// The one-open-row rule, as the server applies it: of the owner's open rows the one with the
    /// latest start (ties: the larger id) stays open; the others close at its start, each as a new
    /// local write so the close syncs too.
    func enforceOpenRowRule(_ sql: TableSQL, owner: UUID) throws {
        guard let rule = sql.table.openRowRule else { return }
        let table = quoted(sql.table.name)
        let start = quoted(rule.start)
        let end = quoted(rule.end)
        let deleted = sql.table.column(named: ReservedColumn.deletedMs) != nil ? " AND deleted_ms IS NULL" : ""
        let open = try database.fetchAll(
            "SELECT id, \(start) FROM \(table) WHERE user_id = ? AND \(end) IS NULL\(deleted) ORDER BY \(start) DESC, id DESC",
            [.text(owner.lowercasedString)]
        ) { ($0.text(at: 0) ?? "", $0[1], sql.table.column(named: rule.start)?.syncValue($0, at: 1) ?? .null) }
        guard let keeper = open.first, open.count > 1 else { return }
        for (id, _, _) in open.dropFirst() {
            if sql.merge != nil {
                try writeColumns([rule.end: keeper.2], of: id, sql)
            } else if sql.table.conflict == .lww {
                try database.execute(
                    "UPDATE \(table) SET \(end) = ?, updated_ms = ?, device_id = ?, _dirty = \(DirtyState.dirty.sql) \(sql.whereKey)",
                    [
                        keeper.1, .integer(store.state.nextStamp(after: try storedUpdatedMs(.text(id), sql))), .text(store.deviceID),
                        .text(id),
                    ]
                )
            } else {
                try database.execute(
                    "UPDATE \(table) SET \(end) = ?, _dirty = \(DirtyState.dirty.sql) \(sql.whereKey)", [keeper.1, .text(id)])
            }
        }
        flags.wroteLocally = true
    }

    /// What a write transaction did, for the store to act on after it commits.
    final class Flags {
        var wroteLocally = false
    }
}
