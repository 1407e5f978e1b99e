import Foundation
import HopeSyncSQLite

/// The conflicts layer's part in the store's own transactions. Saving or deleting a synced row
/// of a version table does not write the row for the next push: it queues a guarded write, and
/// a pulled row that replaces a row with queued writes gets them laid over it again. The store
/// knows only this seam; `MutationQueue` (Conflicts/) implements it.
protocol GuardedWriteQueue: Sendable {
    /// Queues `values` (every column of the row) as a guarded update, when the row is a synced
    /// row of a version table; false when the write is not one to guard.
    func queueUpdate(_ values: [SyncValue], _ sql: TableSQL, filters: [Filter], in writer: StoreWriter) throws -> Bool
    /// Queues a soft delete as a guarded write; false when the row is not one to guard.
    func queueDelete(_ key: UUID, _ sql: TableSQL, in writer: StoreWriter) throws -> Bool
    /// After a pulled page replaced rows of the table: the rows with queued writes get them back.
    func restoreQueuedWrites(over rows: [ColumnValues], _ sql: TableSQL, _ database: Database) throws
    /// Access to the rows `ids` of the table ended (their scope's membership, or the row left
    /// the user's reach): each write of theirs the server never accepted (a waiting or refused
    /// row, queued guarded writes) goes to the rejected list with `reason`, so the user can copy
    /// it out, before the store deletes the rows.
    func rejectUnacceptedWrites(ofRows ids: [String], _ sql: TableSQL, reason: String, for store: SyncStore, _ database: Database) throws
}

/// Where a store opened by its public initializers (SyncStore+Open.swift) gets its queue: the
/// layer above supplies it, through `SyncStore`'s conformance (Conflicts/), so the store opens
/// without naming that layer.
protocol GuardedWriteQueueSupplier {
    static func makeGuardedWriteQueue() -> any GuardedWriteQueue
}
