import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// The queue of version tables' writes: an update or delete of a row this device has seen at a
/// server version becomes a guarded write in `_sync_mutations`, with its base. A row never seen
/// at a server version (a new row, before its first push comes back) stays on the dirty-row
/// upsert path: inserts are last writer wins.
struct MutationQueue: GuardedWriteQueue {
    func queueUpdate(_ values: [SyncValue], _ sql: TableSQL, filters: [Filter], in writer: StoreWriter) throws -> Bool {
        let database = writer.database
        guard let versionColumn = sql.table.conflict.versionColumn,
            let id = sql.index(of: sql.table.primaryKey).flatMap({ values[$0].text }), let key = UUID(text: id),
            let current = try LocalRow.values(of: key, sql, database),
            let version = current.row[versionColumn], let baseVersion = version.versionText,
            current.dirty != DirtyState.dirty.rawValue, current.dirty != DirtyState.rejected.rawValue
        else { return false }
        let settable = sql.table.columns.filter { ![.id, .owner, .version].contains($0.role) && !$0.role.isWrittenByServerOnly }
        let changed = settable.map(\.name).filter { name in values[sql.index(of: name)!] != current.row[name] }
        guard !changed.isEmpty else { return true }
        let body = ColumnValues(columns: changed, values: changed.map { values[sql.index(of: $0)!] })
        try enqueue(
            .update, key, body, baseVersion: baseVersion, base: current.row.subset(changed + [versionColumn]), filters: filters, sql, writer
        )
        return true
    }

    /// A soft delete is a guarded update of `deleted_ms` that only a row not yet deleted meets.
    func queueDelete(_ key: UUID, _ sql: TableSQL, in writer: StoreWriter) throws -> Bool {
        let database = writer.database
        guard let versionColumn = sql.table.conflict.versionColumn,
            let current = try LocalRow.values(of: key, sql, database),
            let baseVersion = current.row[versionColumn]?.versionText,
            current.dirty != DirtyState.dirty.rawValue, current.dirty != DirtyState.rejected.rawValue
        else { return false }
        guard current.row[ReservedColumn.deletedMs] == .null else { return true }
        let body = ColumnValues([ReservedColumn.deletedMs: .int(writer.store.state.now())])
        try enqueue(
            .delete, key, body, baseVersion: baseVersion, base: current.row.subset([versionColumn]),
            filters: [Filter(ReservedColumn.deletedMs, .isNull)], sql, writer)
        return true
    }

    private func enqueue(
        _ operation: MutationOperation, _ key: UUID, _ body: ColumnValues,
        baseVersion: String, base: ColumnValues, filters: [Filter], _ sql: TableSQL, _ writer: StoreWriter
    ) throws {
        try LocalRow.write(body, to: key, sql, writer.database, dirty: .queued)
        try writer.database.execute(
            """
            INSERT INTO _sync_mutations (user_id, table_name, operation, row_id, body, base_version, base, filters, created_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(writer.store.userID.lowercasedString), .text(sql.table.name), .text(operation.rawValue),
                .text(key.lowercasedString), .text(StoredValues.encode(body)), .text(baseVersion),
                .text(StoredValues.encode(base)), .text(StoredValues.encode(filters)), .integer(writer.store.state.wallClock()),
            ])
    }

    func restoreQueuedWrites(over rows: [ColumnValues], _ sql: TableSQL, _ database: Database) throws {
        try LocalRow.overlayQueuedWrites(in: rows, sql, database)
    }

    func rejectUnacceptedWrites(ofRows ids: [String], _ sql: TableSQL, reason: String, for store: SyncStore, _ database: Database) throws {
        let now = store.state.wallClock()
        for id in ids {
            guard let key = UUID(text: id), let local = try LocalRow.values(of: key, sql, database) else { continue }
            if local.dirty == DirtyState.dirty.rawValue || local.dirty == DirtyState.rejected.rawValue {
                // The whole row is the write: kept as the entry's body, since the row goes.
                let entry = RejectedEntry(
                    table: sql.table.name, operation: .upsert, rowID: id, body: local.row, message: reason, createdMs: now,
                    retryable: false)
                try entry.record(for: store.userID, atMs: now, database)
            }
        }
        let rows = Set(ids)
        let queued = try StoreReader(store: store, database: database).queuedMutations().filter {
            $0.table.name == sql.table.name && rows.contains($0.rowID.lowercasedString)
        }
        for write in queued {
            try RejectedEntry(write, message: reason, retryable: false).record(for: store.userID, atMs: now, database)
            try database.execute("DELETE FROM _sync_mutations WHERE id = ?", [.integer(write.id)])
        }
    }
}
