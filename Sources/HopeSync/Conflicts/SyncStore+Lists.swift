import Foundation
import HopeSyncSQLite

/// The queue and the lists, read: the current user's entries, oldest first.
extension SyncStore {
    /// The conflicted list now and after every change (the first value at once).
    public func observeConflictedMutations() -> AsyncThrowingStream<[ConflictedMutation], any Error> {
        observe { try $0.conflictedMutations() }
    }

    /// The conflicted list, read once.
    public func conflictedMutations() throws(SyncError) -> [ConflictedMutation] {
        try withReader { try StoreReader(store: self, database: $0).conflictedMutations() }
    }

    /// The rejected list now and after every change (the first value at once).
    public func observeRejectedMutations() -> AsyncThrowingStream<[RejectedMutation], any Error> {
        observe { try $0.rejectedMutations() }
    }

    /// The rejected list, read once.
    public func rejectedMutations() throws(SyncError) -> [RejectedMutation] {
        try withReader { try StoreReader(store: self, database: $0).rejectedMutations() }
    }

    /// The queued guarded writes, read once.
    public func pendingMutations() throws(SyncError) -> [PendingMutation] {
        try withReader { try StoreReader(store: self, database: $0).pendingMutations() }
    }

    /// The queue in replay order (`id`: just that write), read once.
    func queuedMutations(id: Int64? = nil) throws(SyncError) -> [QueuedMutation] {
        try withReader { try StoreReader(store: self, database: $0).queuedMutations(id: id) }
    }

    /// Counts for the status, read at once: a write moving between the queue and a list is
    /// counted in exactly one of them.
    func pendingCounts() throws(SyncError) -> WaitingCounts {
        try withReader { try StoreReader(store: self, database: $0).waitingCounts() }
    }
}
