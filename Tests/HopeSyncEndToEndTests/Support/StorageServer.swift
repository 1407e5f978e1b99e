import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncPostgresCluster
import HopeSyncPostgresFixture
import HopeSyncTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The test Storage server (Tests/Servers/storage_server.py) over a test database: bytes in a
/// folder of its own, metadata in the database's storage.objects under the generated policies.
/// It stops with the test process.
final class StorageServer: Sendable {
    let server: PythonServer
    let folder: URL

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    init(database: TestDatabase) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        server = try PythonServer(script: "storage_server.py", arguments: [database.url, folder.path, TestJWT.secret], root: Self.root)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    var projectURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    /// The transport devices upload and download through. A short idle timeout: after a cut
    /// connection, libcurl (URLSession on Linux) may send an upload again without its body and
    /// wait for it until this timeout ends the attempt.
    func transport() -> StorageTransport {
        StorageTransport(configuration: .init(projectURL: projectURL, anonKey: "anon", idleTimeout: 5, session: Self.session) { nil })
    }

    /// A session whose requests time out as quickly (a resent request takes its timeout from here).
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 5
        return URLSession(configuration: configuration)
    }()

    /// Sets failure switches (`fail_next`, `fail_status`, `delay_ms`, `cut_after_bytes`,
    /// `upload_bytes_per_second`, `tokens_expired`, `not_found_shape`).
    func control(_ switches: [String: Any]) async throws {
        try await post("/_test/control", switches)
    }

    /// An object lost behind the clients' backs: its row and bytes go.
    func remove(_ object: FileObject) async throws {
        try await post("/_test/remove", ["bucket": object.bucket, "name": object.path])
    }

    struct Request: Decodable {
        let method: String
        let path: String
        let status: Int?
        let received: Int
    }

    /// Every Storage request so far, in order.
    func requests() async throws -> [Request] {
        let (data, _) = try await URLSession.shared.data(from: projectURL.appendingPathComponent("_test/requests"))
        return try JSONDecoder().decode([Request].self, from: data)
    }

    /// The requests that named `object`.
    func requests(for object: FileObject) async throws -> [Request] {
        try await requests().filter { $0.path.hasSuffix("/\(object.bucket)/\(object.path)") }
    }

    /// Uploads as a client of Storage's REST API would, under a name given as it goes in the
    /// URL's path (percent-encoded where it must be); returns the HTTP status and the answer.
    func upload(_ bytes: Data, bucket: String, name: String, token: String) async throws -> (status: Int, body: String) {
        var request = URLRequest(url: URL(string: "\(projectURL.absoluteString)/storage/v1/object/\(bucket)/\(name)")!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("anon", forHTTPHeaderField: "apikey")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = bytes
        let (body, response) = try await Self.session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? -1, String(decoding: body, as: UTF8.self))
    }

    private func post(_ path: String, _ body: [String: Any]) async throws {
        var request = URLRequest(url: projectURL.appendingPathComponent(String(path.dropFirst())))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (_, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
    }
}
