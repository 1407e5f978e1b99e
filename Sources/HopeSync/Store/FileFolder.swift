import Foundation
import HopeSyncModel

/// The store's folder of files, beside its database (`sync-<user>.sqlite` keeps its files in
/// `sync-<user>.files/`): each file under its content-addressed name, so its place follows from
/// the name and nothing records a path. Files being written (an attach, a download) go to
/// `.incoming/` first and are moved into place whole, so a name in the folder always holds its
/// complete bytes; whatever a killed process left in `.incoming/` is removed at the next open.
/// Bytes stream through in chunks, never whole in memory.
struct FileFolder: Sendable {
    let root: URL

    init(databasePath path: String) {
        if path.isEmpty || path == ":memory:" {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().lowercasedString).files")
        } else {
            root = URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension("files")
        }
    }

    var incoming: URL { root.appendingPathComponent(".incoming") }

    func url(for file: SyncFile) -> URL { root.appendingPathComponent(file.name) }

    func contains(_ file: SyncFile) -> Bool { FileManager.default.fileExists(atPath: url(for: file).path) }

    /// A fresh path in `.incoming/` for bytes on their way in.
    func incomingURL() throws(SyncError) -> URL {
        try create(incoming)
        return incoming.appendingPathComponent(UUID().lowercasedString)
    }

    /// The bytes of `source` copied in under their content's name, read in chunks and hashed on
    /// the way.
    func attach(copying source: URL, fileExtension: String?) throws(SyncError) -> (SyncFile, Int64) {
        let temporary = try incomingURL()
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
                let output = FileHandle(forWritingAtPath: temporary.path)
            else { throw SyncError(.localFile, "Cannot write a file into \(root.lastPathComponent)") }
            defer { try? output.close() }
            let (digest, size) = try Self.digest(of: source) { chunk in try output.write(contentsOf: chunk) }
            try output.close()
            let file = SyncFile(sha256: digest, fileExtension: fileExtension)
            try moveIntoPlace(temporary, as: file)
            return (file, size)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Self.failure(error, "Cannot attach \(source.lastPathComponent)")
        }
    }

    /// `data` written in under its content's name.
    func attach(_ data: Data, fileExtension: String?) throws(SyncError) -> SyncFile {
        var hasher = SHA256()
        data.withUnsafeBytes { hasher.update($0.bindMemory(to: UInt8.self)) }
        let file = SyncFile(sha256: hasher.finalize(), fileExtension: fileExtension)
        guard !contains(file) else { return file }
        let temporary = try incomingURL()
        do {
            try data.write(to: temporary)
            try moveIntoPlace(temporary, as: file)
            return file
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Self.failure(error, "Cannot attach a file")
        }
    }

    /// Downloaded bytes moved into place once they match their name; false (and the bytes
    /// removed) when they do not.
    func adopt(_ downloaded: URL, as file: SyncFile) throws(SyncError) -> Bool {
        do {
            let (digest, _) = try Self.digest(of: downloaded) { _ in }
            guard SHA256.hexDigits(digest) == file.sha256 else {
                try? FileManager.default.removeItem(at: downloaded)
                return false
            }
            try moveIntoPlace(downloaded, as: file)
            return true
        } catch {
            try? FileManager.default.removeItem(at: downloaded)
            throw Self.failure(error, "Cannot keep the downloaded \(file.name)")
        }
    }

    func size(of file: SyncFile) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url(for: file).path)[.size] as? NSNumber)?.int64Value
    }

    /// The names of the files in place (not those on their way in).
    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter { !$0.hasPrefix(".") }
    }

    func remove(named name: String) {
        try? FileManager.default.removeItem(at: root.appendingPathComponent(name))
    }

    /// What an interrupted attach or download left behind.
    func removeIncoming() {
        try? FileManager.default.removeItem(at: incoming)
    }

    /// The whole folder, with the rows (sign-out, clearLocalData).
    func removeEveryFile() {
        try? FileManager.default.removeItem(at: root)
    }

    private func moveIntoPlace(_ temporary: URL, as file: SyncFile) throws {
        // The same name holds the same bytes: a copy already in place is as good.
        if contains(file) {
            try FileManager.default.removeItem(at: temporary)
        } else {
            try FileManager.default.moveItem(at: temporary, to: url(for: file))
        }
    }

    private func create(_ folder: URL) throws(SyncError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw Self.failure(error, "Cannot make the folder \(folder.lastPathComponent)")
        }
    }

    /// How much is read at a time: large enough for throughput, small beside a photo's size.
    static let chunkSize = 1 << 20

    /// The SHA-256 and size of the file at `url`, each chunk handed to `body` as it is read.
    static func digest(of url: URL, _ body: (Data) throws -> Void) throws -> ([UInt8], Int64) {
        guard let input = FileHandle(forReadingAtPath: url.path) else {
            throw SyncError(.localFile, "Cannot read \(url.lastPathComponent)")
        }
        defer { try? input.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let chunk = try autoreleasepool { try input.read(upToCount: chunkSize) } ?? Data()
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { hasher.update($0.bindMemory(to: UInt8.self)) }
            try body(chunk)
            size += Int64(chunk.count)
        }
        return (hasher.finalize(), size)
    }

    private static func failure(_ error: any Error, _ what: String) -> SyncError {
        if let error = error as? SyncError { return error }
        return SyncError(.localFile, "\(what): \(error.localizedDescription)")
    }
}

#if !canImport(ObjectiveC)
    /// Linux has no autorelease pool; chunks are freed as they go out of scope.
    @inline(__always) private func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
        try body()
    }
#endif
