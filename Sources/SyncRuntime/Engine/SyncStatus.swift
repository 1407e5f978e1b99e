import Foundation

/// What the engine is doing and what waits, as a value apps can draw.
public struct SyncStatus: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        case idle
        case syncing
        /// The network failed or was switched off; writes queue locally.
        case offline
        /// The last attempt failed; the next one is at this time.
        case backingOff(until: Date)
        /// The server lacks a column this client has: it needs the generated migration.
        case schemaDrift(SchemaDrift)
        /// Nobody (or another user) is signed in: writes queue; syncing resumes at sign-in.
        case waitingForSignIn
    }

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

    public var hasSynced: Bool { lastSyncedAt != nil }

    public init() {}

    mutating func count(_ counts: WaitingCounts) {
        dirtyCount = counts.dirty
        pendingCount = counts.pending
        conflictedCount = counts.conflicted
        rejectedCount = counts.rejected
    }
}

/// What one sync pass did.
public struct SyncReport: Sendable, Equatable {
    /// Rows the server accepted (or already had).
    public var pushed = 0
    /// Remote rows applied locally.
    public var pulled = 0
    /// Rows and guarded writes that went to the rejected list in this pass.
    public var rejected = 0
    /// Guarded writes that landed (applied, or found already on the server).
    public var synced = 0
    /// Of `synced`, conflicts settled with keepLocal or apply and sent.
    public var conflictsResolved = 0
    /// Guarded writes dropped for the server's row (keepServer).
    public var conflictsKeptServer = 0
    /// Of `synced`, writes whose earlier send had landed, and deletes of rows already gone.
    public var alreadyOnServer = 0
    /// The writes this pass parked on the conflicted list.
    public var conflicted: [ConflictedMutation] = []
    /// Remote rows that could not be read: reported, never applied.
    public var undecodable: [UndecodableRow] = []

    public init() {}
}
