import Foundation
import HopeSyncSQLite

/// How a replayed write leaves the queue, each in one transaction, so a write is always in
/// exactly one place: the queue, a list, or nowhere (settled).
extension SyncStore {
    /// The write landed and `server` (key, version, set columns) is the row now: cached, and its
    /// version and values become the base of this user's later queued writes to the row.
    func settleApplied(_ write: QueuedMutation, server: ColumnValues) throws(SyncError) {
        try settle(write) { database, sql in
            try LocalRow.write(server, to: write.rowID, sql, database)
            try forward(server, after: write, database)
        }
    }

    /// The write needs nothing more (its row no longer meets its filter, or it was gone already),
    /// but it did not land: the row may still show its values, laid over a pulled row while it
    /// waited (for a file, say), with a `server_seq` no pull passes again. So the row takes
    /// `server` (the columns read, under the version the device saw) and is fetched again whole.
    func settleSynced(_ write: QueuedMutation, server: ColumnValues?) throws(SyncError) {
        try settle(write) { database, sql in
            if let server {
                try LocalRow.write(server.withoutColumns([write.versionColumn]), to: write.rowID, sql, database)
            }
            try requestRefresh(table: write.table.name, rowID: write.rowID, database)
        }
    }

    /// keepServer: the write is dropped and the server's values shown (under the version the
    /// device saw); a row deleted on the server is shown deleted, at its version; a row gone
    /// altogether (or hidden) leaves the cache.
    func settleKeptServer(_ write: QueuedMutation, server: ColumnValues?, deleted: ColumnValues? = nil) throws(SyncError) {
        try settle(write) { database, sql in
            if let server {
                try LocalRow.write(server.withoutColumns([write.versionColumn]), to: write.rowID, sql, database)
            } else if let deleted {
                try LocalRow.write(deleted, to: write.rowID, sql, database)
            } else {
                try database.execute("DELETE FROM \(sql.quotedName) \(sql.whereKey)", [.text(write.rowID.lowercasedString)])
            }
        }
    }

    /// Parked on the conflicted list: the row shows the server's values for the columns read,
    /// under the version the device saw (so a later write to it still meets the move).
    func settleParked(_ write: QueuedMutation, _ conflict: ConflictedEntry) throws(SyncError) {
        try settle(write) { database, sql in
            try conflict.record(write, for: userID, atMs: state.wallClock(), database)
            if let server = conflict.server {
                try LocalRow.write(server.withoutColumns([write.versionColumn]), to: write.rowID, sql, database)
            }
        }
    }

    /// Refused: on the rejected list with the server's answer (none for a policy's silent denial);
    /// the row shows what the device saw before the write, as the server still holds it.
    func settleRejected(_ write: QueuedMutation, serverError: ServerError?, message: String) throws(SyncError) {
        try settle(write) { database, sql in
            try restoreBase(of: write, sql, database)
            try RejectedEntry(write, serverError: serverError, message: message).record(for: userID, atMs: state.wallClock(), database)
        }
    }

    /// The write's shared row is hidden from the user now (access to its scope ended, or it moved
    /// where they cannot read it): the write goes to the rejected list with `message`, never to
    /// be retried, and the row is fetched again at the next pass, which removes the copy the
    /// server no longer shows.
    func settleOutOfReach(_ write: QueuedMutation, message: String) throws(SyncError) {
        try settle(write) { database, sql in
            try restoreBase(of: write, sql, database)
            try RejectedEntry(write, message: message, retryable: false).record(for: userID, atMs: state.wallClock(), database)
            try requestRefresh(table: write.table.name, rowID: write.rowID, database)
        }
    }

    /// Removes a queued write unsent (one the server keeps failing with 5xx, say), so the writes
    /// behind it go. The row shows again what the device saw before the write.
    public func discardPendingMutation(id: Int64) throws(SyncError) {
        let write = try queuedMutations().first { $0.id == id }
        guard let write else { throw SyncError(.invalidRequest, "No queued write has id \(id)") }
        try settle(write) { database, sql in
            try restoreBase(of: write, sql, database)
            try requestRefresh(table: write.table.name, rowID: write.rowID, database)
        }
    }

    /// Recorded before each send, in its own transaction: if no answer comes back (a dropped
    /// connection, an app that did not outlive the request), nothing can say whether the write
    /// landed, and the next replay must not send it over a change that may be later (0050).
    func recordSending(_ write: QueuedMutation) throws(SyncError) {
        guard !write.mayHaveLanded else { return }
        try markMayHaveLanded(write, true)
    }

    /// The send was answered (it did not land) but the read that follows failed: the write is
    /// as it was before the send.
    func recordUnlanded(_ write: QueuedMutation) throws(SyncError) {
        guard !write.mayHaveLanded else { return }
        try markMayHaveLanded(write, false)
    }

    private func markMayHaveLanded(_ write: QueuedMutation, _ value: Bool) throws(SyncError) {
        try writeTransaction { database in
            try database.execute(
                "UPDATE _sync_mutations SET may_have_landed = ? WHERE id = ?", [.integer(value ? 1 : 0), .integer(write.id)])
        }
    }

    /// Lays the write's base values (not its version) back on the row.
    private func restoreBase(of write: QueuedMutation, _ sql: TableSQL, _ database: Database) throws {
        try LocalRow.write(write.base.withoutColumns([write.versionColumn]), to: write.rowID, sql, database)
    }

    private func settle(_ write: QueuedMutation, _ body: (Database, TableSQL) throws -> Void) throws(SyncError) {
        let sql = try tableSQL(write.table.name)
        try writeTransaction { database in
            try database.execute("DELETE FROM _sync_mutations WHERE id = ?", [.integer(write.id)])
            try body(database, sql)
            try LocalRow.overlayQueuedWrites(on: write.rowID, sql, database)
        }
        state.notifyObservers()
    }

    /// The same user's later queued writes to the row take `server` as their base.
    private func forward(_ server: ColumnValues, after write: QueuedMutation, _ database: Database) throws {
        guard let version = server[write.versionColumn]?.versionText else { return }
        let later = try database.fetchAll(
            "SELECT id, base FROM _sync_mutations WHERE table_name = ? AND row_id = ? AND user_id = ? AND id > ?",
            [.text(write.table.name), .text(write.rowID.lowercasedString), .text(userID.lowercasedString), .integer(write.id)]
        ) { ($0.int64(at: 0), $0.text(at: 1) ?? "[]") }
        for (id, stored) in later {
            let base = try StoredValues.decode(stored)
            try database.execute(
                "UPDATE _sync_mutations SET base_version = ?, base = ? WHERE id = ?",
                [.text(version), .text(StoredValues.encode(base.merging(server.subset(base.columns)))), .integer(id)]
            )
        }
    }
}
