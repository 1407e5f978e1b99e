import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// The file columns' files: where each stands, what is due to move, and which the device may
/// let go. A file is dropped from this device only when no local row names it (nor a queued,
/// conflicted or rejected write): never because the server refused it, said it has no such
/// object, or a token expired. Failures only set its status, and the next attempt waits longer
/// each time (``retryDelayMs(afterAttempts:refused:)``), so nothing ever retries in a loop.
extension SyncStore {
    /// One file the engine moves.
    struct FileEntry: Sendable {
        /// The object in the first of `folders`.
        let object: FileObject
        let state: SyncFileState
        let attempts: Int
        /// Where the object goes (an upload: each of them) or may be fetched from (a download:
        /// the first that has it), as the rows naming it say (SyncStore+FileFolders.swift).
        let folders: [UUID]
        /// Whether one of the folders is a scope no pull listed yet: one this device made, whose
        /// folder Storage opens to the user only once the push has sent the scope.
        var waitsForNewScope = false

        init(bucket: String, file: SyncFile, state: SyncFileState, attempts: Int, folders: [UUID]) {
            object = FileObject(bucket: bucket, owner: folders[0], file: file)
            self.state = state
            self.attempts = attempts
            self.folders = folders
        }

        /// The object in each folder, in order.
        var objects: [FileObject] { folders.map { FileObject(bucket: object.bucket, owner: $0, file: object.file) } }
    }

    // MARK: The app's

    /// The local copy of `file`, or nil while this device does not have it. Asking for a file of
    /// an `on_read` column that is not here yet queues its download: the engine fetches it with
    /// its next pass (``SyncEngine/localFile(_:)`` fetches it at once).
    public func fileURL(for file: SyncFile) throws(SyncError) -> URL? {
        if files.contains(file) { return files.url(for: file) }
        let requested = try withWriter { database in
            try database.execute(
                "UPDATE _sync_files SET state = ?, retry_ms = 0 WHERE name = ? AND state = ?",
                [.text(SyncFileState.downloadQueued.stored), .text(file.name), .text(SyncFileState.notDownloaded.stored)])
            return database.changes > 0
        }
        if requested {
            state.notifyObservers()
            state.localWriteHandler?()
        }
        return nil
    }

    // MARK: The engine's

    /// Files due to upload (in the order attached), or to download (including those the server
    /// refused or lacked, once their pause is over).
    func filesDue(_ direction: SyncFileTransfer.Direction, limit: Int) throws(SyncError) -> [FileEntry] {
        let states = direction == .upload ? [SyncFileState.uploadQueued] : [.downloadQueued, .missing, .refused]
        let placeholders = states.map { _ in "?" }.joined(separator: ", ")
        let cached = direction == .upload ? "cached = 1" : "cached = 0"
        return try withReader { database in
            let due = try database.fetchAll(
                """
                SELECT bucket, name, state, attempts FROM _sync_files
                WHERE state IN (\(placeholders)) AND \(cached) AND retry_ms <= ? ORDER BY created_ms, name LIMIT ?
                """, states.map { .text($0.stored) } + [.integer(state.wallClock()), .integer(Int64(limit))]
            ) { row -> (String, SyncFile, SyncFileState, Int)? in
                guard let file = SyncFile(name: row.text(at: 1) ?? ""), let state = SyncFileState(stored: row.text(at: 2) ?? "") else {
                    return nil
                }
                return (row.text(at: 0) ?? "", file, state, Int(row.int64(at: 3)))
            }.compactMap { $0 }
            var folders: [String: [String: [UUID]]] = [:]
            for bucket in Set(due.map { $0.0 }) {
                folders[bucket] = try self.folders(naming: due.filter { $0.0 == bucket }.map { $0.1.name }, in: bucket, database)
            }
            return try due.map { bucket, file, state, attempts in
                let named = folders[bucket]?[file.name] ?? []
                guard direction == .upload else {
                    return FileEntry(bucket: bucket, file: file, state: state, attempts: attempts, folders: downloadFolders(named))
                }
                var entry = FileEntry(
                    bucket: bucket, file: file, state: state, attempts: attempts, folders: try uploadFolders(named, database))
                entry.waitsForNewScope = try entry.folders.contains { folder in
                    if folder == userID { return false }
                    return try role(in: folder.lowercasedString, database) == nil
                }
                return entry
            }
        }
    }

    /// The entries of one file, in every bucket that names it.
    func fileEntries(of file: SyncFile) throws(SyncError) -> [FileEntry] {
        try withReader { database in
            try database.fetchAll("SELECT bucket, state, attempts FROM _sync_files WHERE name = ?", [.text(file.name)]) { row in
                (row.text(at: 0) ?? "", SyncFileState(stored: row.text(at: 1) ?? "") ?? .downloadQueued, Int(row.int64(at: 2)))
            }.map { bucket, state, attempts in
                FileEntry(
                    bucket: bucket, file: file, state: state, attempts: attempts,
                    folders: downloadFolders(try folders(naming: [file.name], in: bucket, database)[file.name] ?? []))
            }
        }
    }

    /// Where the engine reads an upload from.
    func fileURL(of entry: FileEntry) -> URL { files.url(for: entry.object.file) }

    /// A fresh place for a download on its way in.
    func incomingFileURL() throws(SyncError) -> URL { try files.incomingURL() }

    /// The object is on the server: rows naming it may go.
    func fileUploaded(_ entry: FileEntry) throws(SyncError) {
        try updateFile(
            entry, state: .synced, set: "attempts = 0, retry_ms = 0, error_code = NULL, error_status = NULL, error_message = NULL")
    }

    /// Keeps a finished download once its bytes match its name; false when they do not (a
    /// failure like any other: the file waits and is fetched again later).
    func fileDownloaded(_ entry: FileEntry, at downloaded: URL) throws(SyncError) -> Bool {
        guard try files.adopt(downloaded, as: entry.object.file) else {
            try fileFailed(entry, SyncError(.decoding, "The downloaded bytes of \(entry.object.file.name) do not match its name"))
            return false
        }
        try keepDownloaded(entry)
        return true
    }

    /// Records the file as downloaded when its bytes are in the folder already (a name there
    /// always holds its whole bytes); false when they are not.
    func fileAlreadyHere(_ entry: FileEntry) throws(SyncError) -> Bool {
        guard files.contains(entry.object.file) else { return false }
        try keepDownloaded(entry)
        return true
    }

    private func keepDownloaded(_ entry: FileEntry) throws(SyncError) {
        let size = files.size(of: entry.object.file)
        try updateFile(
            entry, state: .synced,
            set: "cached = 1, size = ?, attempts = 0, retry_ms = 0, error_code = NULL, error_status = NULL, error_message = NULL",
            [size.map(DatabaseValue.integer) ?? .null])
    }

    /// A failed attempt: the status says why, and the next waits (see ``retryDelayMs(afterAttempts:refused:)``).
    /// A download the server refuses or lacks is marked so; an upload stays queued, its rows waiting.
    func fileFailed(_ entry: FileEntry, _ error: SyncError) throws(SyncError) {
        let refused = error.isObjectNotFound || error.isObjectRefused || error.code == .decoding
        var next = entry.state
        if entry.state != .uploadQueued {
            next = error.isObjectNotFound ? .missing : error.isObjectRefused ? .refused : entry.state
        }
        let attempts = error.code == .configuration ? entry.attempts : entry.attempts + 1
        let delay = error.code == .configuration ? Self.fileRetryCeilingMs : Self.retryDelayMs(afterAttempts: attempts, refused: refused)
        try updateFile(
            entry, state: next, set: "attempts = ?, retry_ms = ?, error_code = ?, error_status = ?, error_message = ?",
            [
                .integer(Int64(attempts)), .integer(state.wallClock() + delay), .text(error.code.description),
                error.serverError.map { .integer(Int64($0.status)) } ?? .null, .text(error.message),
            ])
    }

    /// How long a file waits after `attempts` failures: from a second, doubling, up to five
    /// minutes; from a minute up to six hours when the server refused it or has no such object
    /// (asking again soon would not change its answer).
    static func retryDelayMs(afterAttempts attempts: Int, refused: Bool) -> Int64 {
        let (first, ceiling): (Duration, Duration) = refused ? (.seconds(60), .seconds(6 * 3_600)) : (.seconds(1), .seconds(300))
        return Duration.doubling(from: first, afterFailures: attempts, upTo: ceiling).milliseconds
    }

    /// The pause of a file that cannot move at all yet (no Storage endpoint configured).
    static let fileRetryCeilingMs: Int64 = 60_000

    private func updateFile(_ entry: FileEntry, state next: SyncFileState, set: String, _ arguments: [DatabaseValue] = [])
        throws(SyncError)
    {
        try writeTransaction { database in
            try database.execute(
                "UPDATE _sync_files SET state = ?, \(set) WHERE bucket = ? AND name = ?",
                [.text(next.stored)] + arguments + [.text(entry.object.bucket), .text(entry.object.file.name)])
        }
        state.notifyObservers()
    }

    // MARK: What the device keeps

    /// Brings the files in line with the rows: every file a row names gets an entry (to download
    /// now, or on first read, as its column says; kept as it is when its bytes are here), and
    /// every entry no row, queued, conflicted or rejected write names is dropped with its bytes.
    /// A row names a file while it is not deleted, or deleted but not yet pushed. Returns how
    /// many entries were dropped.
    @discardableResult
    func reconcileFiles() throws(SyncError) -> Int {
        let columns = schema.fileColumns
        let clean = DirtyState.clean.sql
        let dropped = try withWriter { database in
            let dropped = try database.inTransaction {
                let now = state.wallClock()
                for (table, column) in columns {
                    let wanted = column.download == .eager ? SyncFileState.downloadQueued : .notDownloaded
                    try database.execute(
                        """
                        INSERT OR IGNORE INTO _sync_files (bucket, name, state, created_ms)
                        SELECT DISTINCT ?, \(quoted(column.name)), ?, ? FROM \(quoted(table.name))
                        WHERE \(quoted(column.name)) IS NOT NULL AND (deleted_ms IS NULL OR _dirty <> \(clean))
                        """, [.text(column.type.bucket ?? ""), .text(wanted.stored), .integer(now)])
                }
                try markCachedFiles(database)
                let buckets = Set(columns.compactMap(\.column.type.bucket))
                var dropped = 0
                for bucket in buckets.sorted() {
                    let named = columns.filter { $0.column.type.bucket == bucket }.map { table, column in
                        """
                        SELECT \(quoted(column.name)) FROM \(quoted(table.name))
                        WHERE \(quoted(column.name)) IS NOT NULL AND (deleted_ms IS NULL OR _dirty <> \(clean))
                        """
                    }.joined(separator: " UNION ")
                    try database.execute(
                        """
                        DELETE FROM _sync_files WHERE bucket = ? AND name NOT IN (\(named))
                        AND NOT EXISTS (SELECT 1 FROM _sync_mutations WHERE instr(body, _sync_files.name) > 0)
                        AND NOT EXISTS (SELECT 1 FROM _sync_conflicted WHERE instr(body, _sync_files.name) > 0)
                        AND NOT EXISTS (SELECT 1 FROM _sync_rejected WHERE instr(body, _sync_files.name) > 0)
                        """, [.text(bucket)])
                    dropped += database.changes
                }
                let known = buckets.sorted().map(sqlText).joined(separator: ", ")
                try database.execute("DELETE FROM _sync_files WHERE bucket NOT IN (\(known))")
                return dropped + database.changes
            }
            // Still on the writer, so no attach is half done: bytes no entry names go.
            let kept = Set(try database.fetchAll("SELECT DISTINCT name FROM _sync_files") { $0.text(at: 0) ?? "" })
            for name in files.names() where !kept.contains(name) { files.remove(named: name) }
            return dropped
        }
        state.notifyObservers()
        return dropped
    }

    /// Entries whose bytes are here, though no download brought them (attached here, or by
    /// another bucket's entry): the server has the object, since a pulled row names it.
    private func markCachedFiles(_ database: Database) throws {
        let uncached = try database.fetchAll("SELECT bucket, name FROM _sync_files WHERE cached = 0") {
            ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "")
        }
        for (bucket, name) in uncached {
            guard let file = SyncFile(name: name), files.contains(file) else { continue }
            try database.execute(
                """
                UPDATE _sync_files SET cached = 1, size = ?, state = CASE WHEN state = ? THEN state ELSE ? END
                WHERE bucket = ? AND name = ?
                """,
                [
                    files.size(of: file).map(DatabaseValue.integer) ?? .null, .text(SyncFileState.uploadQueued.stored),
                    .text(SyncFileState.synced.stored), .text(bucket), .text(name),
                ])
        }
    }

    /// Whether a queued guarded write names a file still to upload: it waits, and the writes
    /// behind it with it.
    func waitsForFileUpload(_ body: ColumnValues, in table: TableSchema) throws(SyncError) -> Bool {
        let files = try tableSQL(table.name).fileColumns.compactMap { file in body[file.column.name]?.text.map { (file.bucket, $0) } }
        guard !files.isEmpty else { return false }
        return try withReader { database in
            try files.contains { bucket, name in
                try database.fetchOne(
                    "SELECT 1 FROM _sync_files WHERE bucket = ? AND name = ? AND state = ?",
                    [.text(bucket), .text(name), .text(SyncFileState.uploadQueued.stored)]
                ) { _ in true } == true
            }
        }
    }
}
