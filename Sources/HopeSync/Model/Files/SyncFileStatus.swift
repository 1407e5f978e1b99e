import Foundation

/// One file of the store, as ``StoreReader/fileStatuses()`` lists it.
public struct SyncFileStatus: Sendable, Equatable, Identifiable {
    public var bucket: String
    public var file: SyncFile
    public var state: SyncFileState
    /// Whether this device has the bytes (``SyncStore/fileURL(for:)`` gives them).
    public var isCached: Bool
    /// Its size in bytes, once known here.
    public var size: Int64?
    /// Failed attempts since the last success.
    public var attempts: Int
    /// When the next attempt may be made, after a failure.
    public var retryAt: Date?
    /// Why the last attempt failed: the server's answer, the network, or no Storage endpoint.
    public var lastError: SyncError?

    public var id: String { bucket + "/" + file.name }

    package init(
        bucket: String, file: SyncFile, state: SyncFileState, isCached: Bool, size: Int64?, attempts: Int, retryAt: Date?,
        lastError: SyncError?
    ) {
        self.bucket = bucket
        self.file = file
        self.state = state
        self.isCached = isCached
        self.size = size
        self.attempts = attempts
        self.retryAt = retryAt
        self.lastError = lastError
    }
}
