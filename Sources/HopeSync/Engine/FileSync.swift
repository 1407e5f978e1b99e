import Foundation
import HopeSyncLocking

/// Moves the file columns' files in a pass: uploads before the push (the rows naming a file go
/// only once it is up), downloads after the pull. A failed transfer is recorded on its file (a
/// status, and a pause before the next attempt) and never fails the pass: rows keep syncing
/// while a file waits. At most ``parallelTransfers`` move at once, each object once at a time.
struct FileSync {
    let store: SyncStore
    /// Nil when no Storage endpoint is configured: files then wait, saying so.
    let transport: (any SyncFileTransport)?
    let networkEnabled: Locked<Bool>
    let transfers: FileTransfers
    let user: Credentials

    static let parallelTransfers = 3
    /// Files read from the store at a time.
    static let batchSize = 64

    /// Uploads the files due that a row still names (one replaced before it went up never goes).
    func upload(into report: inout SyncReport) async throws(SyncError) {
        _ = try await store.onWriter { store throws(SyncError) in try store.reconcileFiles() }
        try await move(.upload, into: &report)
    }

    /// Brings the files in line with the rows just pulled (see ``SyncStore/reconcileFiles()``)
    /// and downloads those due.
    func download(into report: inout SyncReport) async throws(SyncError) {
        _ = try await store.onWriter { store throws(SyncError) in try store.reconcileFiles() }
        try await move(.download, into: &report)
    }

    private func move(_ direction: SyncFileTransfer.Direction, into report: inout SyncReport) async throws(SyncError) {
        while true {
            let due = try await store.onReader { store throws(SyncError) in try store.filesDue(direction, limit: Self.batchSize) }
            guard !due.isEmpty else { return }
            for start in stride(from: 0, to: due.count, by: Self.parallelTransfers) {
                let group = Array(due[start..<min(start + Self.parallelTransfers, due.count)])
                let results = await withTaskGroup(of: Result<Void, SyncError>.self) { tasks in
                    for entry in group { tasks.addTask { await transfer(entry, direction) } }
                    return await tasks.reduce(into: []) { $0.append($1) }
                }
                for result in results {
                    switch result {
                    case .success where direction == .upload: report.filesUploaded += 1
                    case .success: report.filesDownloaded += 1
                    case .failure(let error) where error.code == .cancelled || error.code == .networkDisabled: throw error
                    case .failure: report.fileFailures += 1
                    }
                }
            }
            // Every file taken was moved or now waits for its next attempt.
            if due.count < Self.batchSize { return }
        }
    }

    /// One transfer, or the outcome of the one already moving this object; its result recorded
    /// on the file (but a cancellation or the app's offline switch, which say nothing of it).
    func transfer(_ entry: SyncStore.FileEntry, _ direction: SyncFileTransfer.Direction) async -> Result<Void, SyncError> {
        await transfers.exclusively(entry.object, direction) { progress in
            do throws(SyncError) {
                guard let transport else {
                    throw SyncError(
                        .configuration,
                        "No Storage endpoint is configured: files wait (give SyncEngine a StorageTransport as `files`)")
                }
                guard networkEnabled.value else {
                    throw SyncError(.networkDisabled, "The network is switched off in this app; files wait.")
                }
                if direction == .upload {
                    try await transport.upload(store.fileURL(of: entry), as: entry.object, for: user) { progress($0, nil) }
                    try await store.onWriter { store throws(SyncError) in try store.fileUploaded(entry) }
                } else if try await store.onWriter({ store throws(SyncError) in try store.fileAlreadyHere(entry) }) {
                    // Fetched by the transfer of this object that ended just before this one
                    // started (a read and a pass asking at once).
                } else {
                    let destination = try store.incomingFileURL()
                    try await transport.download(entry.object, to: destination, for: user, progress: progress)
                    guard try await store.onWriter({ store throws(SyncError) in try store.fileDownloaded(entry, at: destination) }) else {
                        return .failure(SyncError(.decoding, "The downloaded bytes of \(entry.object.file.name) do not match its name"))
                    }
                }
                return .success(())
            } catch {
                if error.code != .cancelled && error.code != .networkDisabled {
                    do throws(SyncError) {
                        try await store.onWriter { store throws(SyncError) in try store.fileFailed(entry, error) }
                    } catch { return .failure(error) }
                }
                return .failure(error)
            }
        }
    }
}
