import Foundation

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
    /// Files uploaded and downloaded in this pass.
    public var filesUploaded = 0
    public var filesDownloaded = 0
    /// Transfers that failed in this pass (each file's status says why; it is tried again later).
    public var fileFailures = 0

    package init() {}
}
