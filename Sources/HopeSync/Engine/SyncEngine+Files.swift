import Foundation

/// Files: moved in every pass (``FileSync``), fetched at once when the app asks
/// (``localFile(_:)``), and their transfers watched (``fileTransfers()``).
extension SyncEngine {
    func fileSync(for user: Credentials) -> FileSync {
        FileSync(store: store, transport: fileTransport, networkEnabled: networkEnabled, transfers: transfers, user: user)
    }

    /// The local copy of `file`, downloaded now when this device does not have it yet (one
    /// download per object: a pass fetching it at the same time shares it). Fails while offline,
    /// signed out, or when the server refuses it or has no such object; the file's status says
    /// so too, and a cached copy is never removed for it.
    public func localFile(_ file: SyncFile) async throws(SyncError) -> URL {
        if let url = try await store.onWriter({ store throws(SyncError) in try store.fileURL(for: file) }) { return url }
        guard let user = await credentials(), user.userID == store.userID else {
            throw SyncError(.signedOut, "Nobody is signed in; the file cannot be fetched.")
        }
        guard let entry = try await store.onReader({ store throws(SyncError) in try store.fileEntries(of: file) }).first else {
            throw SyncError(.invalidRequest, "No row of this device names the file \(file.name)")
        }
        if case .failure(let error) = await fileSync(for: user).transfer(entry, .download) { throw error }
        guard let url = try await store.onWriter({ store throws(SyncError) in try store.fileURL(for: file) }) else {
            throw SyncError(.localFile, "The file \(file.name) was downloaded but is not in the store's folder")
        }
        return url
    }

    /// The transfers in progress now and after every change (bytes moved, a transfer starting or
    /// ending). Ending the iteration unsubscribes.
    public nonisolated func fileTransfers() -> AsyncStream<[SyncFileTransfer]> {
        transfers.updates()
    }
}
