import Foundation
import HopeSync
import HopeSyncPostgresCluster
import HopeSyncTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The test Storage server (Tests/Servers/storage_server.py) over a bench database, as the
/// tests start it: bytes in a scratch folder of its own, metadata in the database's
/// storage.objects under the generated policies, tokens checked with ``TestJWT``'s secret.
final class BenchStorage: Sendable {
    static let bucket = "task-photos"

    let server: PythonServer
    /// The server's objects, and the run's own files beside them.
    let scratch: URL

    init(database: BenchDatabase) throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bench-files-\(UUID().uuidString)")
        let objects = scratch.appendingPathComponent("objects")
        try FileManager.default.createDirectory(at: objects, withIntermediateDirectories: true)
        server = try PythonServer(
            script: "storage_server.py", arguments: [database.url, objects.path, TestJWT.secret], root: Repository.root)
    }

    var projectURL: URL { Self.projectURL(port: server.port) }

    static func projectURL(port: Int) -> URL { URL(string: "http://127.0.0.1:\(port)")! }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: scratch)
    }

    /// A file of `bytes` random bytes, written a mebibyte at a time.
    static func randomFile(bytes: Int, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("source-\(bytes).bin")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw BenchmarkError("cannot create \(url.path)") }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        var left = bytes
        while left > 0 {
            let count = min(left, 1 << 20)
            try handle.write(contentsOf: Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            left -= count
        }
        return url
    }

    /// A name no object has yet (a transfer that is not the runtime's needs no real hash).
    static func freshObject(of user: UUID) -> FileObject {
        let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        return FileObject(bucket: bucket, owner: user, file: SyncFile(name: hex + ".bin")!)
    }
}
