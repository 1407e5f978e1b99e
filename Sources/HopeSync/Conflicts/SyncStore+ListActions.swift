import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// What the app can do with the conflicted and rejected lists. Resending queues the write again
/// at the end of the queue under a new id and asks the engine for a pass.
extension SyncStore {
    /// Settles a parked write: keepLocal or apply queue it again, preconditioned on the server's
    /// version the entry recorded; keepServer drops it and shows the server's values.
    public func resolveConflictedMutation(id: Int64, resolution: ConflictResolution) throws(SyncError) {
        guard let entry = try conflictedMutations().first(where: { $0.id == id }) else {
            throw SyncError(.invalidRequest, "No conflicted write has id \(id)")
        }
        let sql = try tableSQL(entry.table)
        guard let versionColumn = sql.table.conflict.versionColumn else {
            throw SyncError(.configuration, "The table \(entry.table) has no version column")
        }
        var resent: ColumnValues?
        switch resolution {
        case .hold:
            throw SyncError(.invalidRequest, "A conflicted write is already held; resolve it with keepLocal, apply or keepServer")
        case .keepServer:
            break
        case .keepLocal:
            guard entry.server != nil, entry.serverVersion != nil else {
                throw SyncError(.invalidRequest, "The row is gone from the server: this write cannot be kept")
            }
            guard let body = entry.body else {
                throw SyncError(.invalidRequest, "This write was too long to keep: use apply with the columns to send")
            }
            resent = body
        case .apply(let columns):
            guard entry.operation == .update, entry.server != nil, entry.serverVersion != nil, !columns.columns.isEmpty else {
                throw SyncError(.invalidRequest, "apply needs an update of a row still on the server, and at least one column")
            }
            resent = columns
        }
        try writeTransaction { database in
            try database.execute("DELETE FROM _sync_conflicted WHERE id = ?", [.integer(id)])
            if let resent, let server = entry.server, let version = entry.serverVersion {
                let base = server.subset(resent.columns + [versionColumn])
                let filters = entry.operation == .delete ? [Filter(ReservedColumn.deletedMs, .isNull)] : []
                try requeue(entry.table, entry.operation, entry.rowID, resent, version, base, filters, entry.createdAtMs, database)
                try LocalRow.overlayQueuedWrites(on: entry.rowID, sql, database)
            } else if let server = entry.server {
                try LocalRow.write(server.withoutColumns([versionColumn]), to: entry.rowID, sql, database)
                try requestRefresh(table: entry.table, rowID: entry.rowID, database)
            } else {
                try database.execute(
                    "DELETE FROM \(sql.quotedName) \(sql.whereKey) AND _dirty <> \(DirtyState.queued.sql)",
                    [.text(entry.rowID.lowercasedString)]
                )
            }
        }
        state.notifyObservers()
        if resent != nil { state.localWriteHandler?() }
    }

    /// Forgets a parked write; the next sync shows the server's copy of the row.
    public func dismissConflictedMutation(id: Int64) throws(SyncError) {
        guard let entry = try conflictedMutations().first(where: { $0.id == id }) else {
            throw SyncError(.invalidRequest, "No conflicted write has id \(id)")
        }
        try deleteEntry(id, from: "_sync_conflicted", refreshing: (entry.table, entry.rowID))
    }

    /// Queues a refused write again at the back of the queue (a row's upsert: the row is pushed
    /// again); a second refusal comes back on this list.
    public func retryRejectedMutation(id: Int64) throws(SyncError) {
        let stored = try withWriter { database in
            try database.fetchOne(
                "SELECT table_name, operation, row_id, body, base_version, base, filters, retryable, created_ms FROM _sync_rejected WHERE id = ?",
                [.integer(id)]
            ) { row in
                (
                    table: row.text(at: 0) ?? "", operation: MutationOperation(rawValue: row.text(at: 1) ?? "") ?? .upsert,
                    rowID: UUID(text: row.text(at: 2) ?? "") ?? UUID(), body: row.text(at: 3), baseVersion: row.text(at: 4),
                    base: row.text(at: 5), filters: row.text(at: 6), retryable: row.int64(at: 7) != 0, createdMs: row.int64(at: 8)
                )
            }
        }
        guard let entry = stored else { throw SyncError(.invalidRequest, "No rejected write has id \(id)") }
        guard entry.operation != .upsert else {
            return try setRejected(entryID: id, table: entry.table, rowID: entry.rowID, to: .dirty)
        }
        guard entry.retryable, let body = entry.body, let version = entry.baseVersion, let base = entry.base else {
            throw SyncError(.invalidRequest, "This write was too long to keep, so it cannot be retried")
        }
        let sql = try tableSQL(entry.table)
        try writeTransaction { database in
            try database.execute("DELETE FROM _sync_rejected WHERE id = ?", [.integer(id)])
            try requeue(
                entry.table, entry.operation, entry.rowID, try StoredValues.decode(body), version,
                try StoredValues.decode(base), try StoredValues.decodeFilters(entry.filters ?? "[]"), entry.createdMs, database)
            try LocalRow.overlayQueuedWrites(on: entry.rowID, sql, database)
        }
        state.notifyObservers()
        state.localWriteHandler?()
    }

    /// Forgets a refused write (a row's upsert: the row stops waiting).
    public func dismissRejectedMutation(id: Int64) throws(SyncError) {
        guard let entry = try rejectedMutations().first(where: { $0.id == id }) else {
            throw SyncError(.invalidRequest, "No rejected write has id \(id)")
        }
        if entry.operation == .upsert {
            try setRejected(entryID: id, table: entry.table, rowID: entry.rowID, to: .clean)
            try withWriter { database in try requestRefresh(table: entry.table, rowID: entry.rowID, database) }
        } else {
            try deleteEntry(id, from: "_sync_rejected", refreshing: (entry.table, entry.rowID))
        }
    }

    /// Removes a list entry; the row it held is fetched from the server again on the next pass
    /// (the device may show values the server never took).
    private func deleteEntry(_ id: Int64, from list: String, refreshing row: (table: String, id: UUID)) throws(SyncError) {
        try writeTransaction { database in
            try database.execute(
                "DELETE FROM \(list) WHERE id = ? AND user_id IN (?, '')", [.integer(id), .text(userID.lowercasedString)])
            try requestRefresh(table: row.table, rowID: row.id, database)
        }
        state.notifyObservers()
    }

    private func requeue(
        _ table: String, _ operation: MutationOperation, _ rowID: UUID, _ body: ColumnValues, _ baseVersion: String,
        _ base: ColumnValues, _ filters: [Filter], _ createdMs: Int64, _ database: Database
    ) throws {
        try database.execute(
            """
            INSERT INTO _sync_mutations (user_id, table_name, operation, row_id, body, base_version, base, filters, created_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(userID.lowercasedString), .text(table), .text(operation.rawValue), .text(rowID.lowercasedString),
                .text(StoredValues.encode(body)), .text(baseVersion), .text(StoredValues.encode(base)),
                .text(StoredValues.encode(filters)), .integer(createdMs),
            ])
    }
}
