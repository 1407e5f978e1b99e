import Foundation

/// What the engine is doing and what waits, as a value apps can draw.
public struct SyncStatus: Sendable, Equatable {
    public var phase: Phase = .idle
    /// Local rows waiting to be pushed.
    public var dirtyCount = 0
    /// Guarded writes of version tables waiting in the queue.
    public var pendingCount = 0
    /// Guarded writes parked on the conflicted list.
    public var conflictedCount = 0
    /// Writes the server refused, waiting for the app to retry or dismiss them.
    public var rejectedCount = 0
    public var lastSyncedAt: Date?
    public var lastError: SyncError?
    /// How the last pass reached the server (``ServerProtocol/functions`` or
    /// ``ServerProtocol/tables``); nil before the first pass.
    public var serverProtocol: ServerProtocol?

    public var hasSynced: Bool { lastSyncedAt != nil }

    package init() {}

    mutating func count(_ counts: WaitingCounts) {
        dirtyCount = counts.dirty
        pendingCount = counts.pending
        conflictedCount = counts.conflicted
        rejectedCount = counts.rejected
    }
}
