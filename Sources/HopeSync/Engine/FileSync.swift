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
    /// Before the push (`beforePush`), a file bound for the folder of a scope this device made
    /// and has not sent waits: Storage lets the user into that folder once the push has made the
    /// scope. Returns whether one waited, for a second round after the push.
    func upload(into report: inout SyncReport, beforePush: Bool = false) async throws(SyncError) -> Bool {
        _ = try await store.onWriter { store throws(SyncError) in try store.reconcileFiles() }
        return try await move(.upload, into: &report, deferringNewScopes: beforePush)
    }

    /// Brings the files in line with the rows just pulled (see ``SyncStore/reconcileFiles()``)
    /// and downloads those due.
    func download(into report: inout SyncReport) async throws(SyncError) {
        _ = try await store.onWriter { store throws(SyncError) in try store.reconcileFiles() }
        _ = try await move(.download, into: &report)
    }

    /// Returns whether a file waited for a new scope (`deferringNewScopes`).
    private func move(_ direction: SyncFileTransfer.Direction, into report: inout SyncReport, deferringNewScopes: Bool = false)
        async throws(SyncError) -> Bool
    {
        while true {
            let taken = try await store.onReader { store throws(SyncError) in try store.filesDue(direction, limit: Self.batchSize) }
            let due = deferringNewScopes ? taken.filter { !$0.waitsForNewScope } : taken
            // What waits comes again with every batch: the round ends with this one.
            let waited = due.count < taken.count
            guard !due.isEmpty else { return waited }
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
            if taken.count < Self.batchSize || waited { return waited }
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
                    // Into every folder a row naming it is in (a shared row's: its scope's).
                    for object in entry.objects {
                        try await transport.upload(store.fileURL(of: entry), as: object, for: user) { progress($0, nil) }
                    }
                    try await store.onWriter { store throws(SyncError) in try store.fileUploaded(entry) }
                } else if try await store.onWriter({ store throws(SyncError) in try store.fileAlreadyHere(entry) }) {
                    // Fetched by the transfer of this object that ended just before this one
                    // started (a read and a pass asking at once).
                } else {
                    let destination = try store.incomingFileURL()
                    try await download(entry, with: transport, to: destination, progress: progress)
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

    /// Fetches the object from the first of its folders that gives it (a row moved into a scope
    /// by a device that could not copy its file leaves it in the folder it came from); the
    /// first folder's failure when none does.
    private func download(
        _ entry: SyncStore.FileEntry, with transport: any SyncFileTransport, to destination: URL,
        progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws(SyncError) {
        var firstFailure: SyncError?
        for object in entry.objects {
            do throws(SyncError) {
                try? FileManager.default.removeItem(at: destination)
                try await transport.download(object, to: destination, for: user, progress: progress)
                return
            } catch {
                guard error.isObjectNotFound else { throw error }
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
    }
}
