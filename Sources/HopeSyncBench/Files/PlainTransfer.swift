import Foundation
import HopeSync
import HopeSyncTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The baseline: the same bytes moved by URLSession alone, on the same routes as Storage's own
/// clients (upload `POST /storage/v1/object/<bucket>/<path>` from the file, download
/// `GET /storage/v1/object/authenticated/...` to a file), with nothing around them.
struct PlainTransfer {
    let projectURL: URL
    let session: URLSession
    let token: String

    /// With `progress`, a delegate takes the bytes sent as they go, as StorageTransport's does:
    /// on Linux, swift-corelibs-foundation hands it every chunk through the session's delegate
    /// queue, which is what an upload with progress costs there beyond the transfer itself.
    func upload(_ source: URL, as object: FileObject, progress: Bool = false) async throws {
        var request = request(["object", object.bucket] + object.path.split(separator: "/").map(String.init))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await session.upload(for: request, fromFile: source, delegate: progress ? BytesSent() : nil)
        try Self.check(response, "upload")
    }

    func download(_ object: FileObject, to destination: URL) async throws {
        let request = request(["object", "authenticated", object.bucket] + object.path.split(separator: "/").map(String.init))
        let (location, response) = try await session.download(for: request)
        try Self.check(response, "download")
        try FileManager.default.moveItem(at: location, to: destination)
    }

    private func request(_ segments: [String]) -> URLRequest {
        var url = projectURL.appendingPathComponent("storage").appendingPathComponent("v1")
        for segment in segments { url = url.appendingPathComponent(segment) }
        var request = URLRequest(url: url)
        request.setValue("anon", forHTTPHeaderField: "apikey")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    private static func check(_ response: URLResponse, _ what: String) throws {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw BenchmarkError("plain \(what) answered HTTP \(status)") }
    }
}

/// Keeps the bytes sent so far, and nothing else.
private final class BytesSent: NSObject, URLSessionTaskDelegate, Sendable {
    let sent = Locked<Int64>(0)

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        sent.withLock { $0 = totalBytesSent }
    }
}
