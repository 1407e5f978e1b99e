import Foundation
import HopeSyncTestSupport

@testable import HopeSync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request as it reached the stub.
struct RecordedRequest: Sendable {
    let method: String
    let url: String
    let headers: [String: String]
    let body: Data?

    /// A header's value, by name in any case (Foundation on Linux capitalizes names).
    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    var bearerToken: String? { header("Authorization").map { String($0.dropFirst("Bearer ".count)) } }
}

/// A fake server behind a URLProtocol: answers requests to its host in order, and records them.
/// Each test uses its own host, so tests running in parallel never share one.
final class StubServer: Sendable {
    enum Answer: Sendable {
        case respond(status: Int, body: String, headers: [String: String] = [:])
        case fail(URLError.Code)
        /// Never answers: the request waits until its task is cancelled or times out.
        case hang
    }

    private struct Exchange {
        var answers: [Answer]
        var recorded: [RecordedRequest] = []
        var abandonedCount = 0
    }

    let host: String
    private let exchange: Locked<Exchange>

    init(host: String = "stub-\(UUID().uuidString.lowercased()).supabase.test", answers: [Answer]) {
        self.host = host
        exchange = Locked(Exchange(answers: answers))
        // A later server for the same host replaces the earlier one (serialized suites reuse a host).
        Self.registry.withLock { $0[host] = self }
    }

    var projectURL: URL { URL(string: "https://\(host)")! }

    var requests: [RecordedRequest] { exchange.withLock { $0.recorded } }
    /// How many unanswered (hanging) requests URLSession took back: cancelled or timed out.
    var abandonedRequests: Int { exchange.withLock { $0.abandonedCount } }

    /// Waits (up to two seconds) for URLSession to take back an unanswered request: it does so
    /// on its own queue, a moment after the caller has its error.
    func abandonedRequestsSettled() async throws -> Int {
        for _ in 0..<400 where abandonedRequests == 0 {
            try await Task.sleep(for: .milliseconds(5))
        }
        return abandonedRequests
    }

    /// A session whose requests all go to the stubs.
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        return URLSession(configuration: configuration)
    }

    fileprivate func answer(_ request: RecordedRequest) -> Answer {
        exchange.withLock { exchange in
            exchange.recorded.append(request)
            // The last answer repeats, so a test that expects no more requests sees them anyway.
            return exchange.answers.count > 1 ? exchange.answers.removeFirst() : exchange.answers[0]
        }
    }

    fileprivate func abandoned() {
        exchange.withLock { $0.abandonedCount += 1 }
    }

    fileprivate static let registry = Locked<[String: StubServer]>([:])
}

final class StubProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    private var server: StubServer? {
        request.url?.host.flatMap { host in StubServer.registry.withLock { $0[host] } }
    }

    override func startLoading() {
        guard let server, let url = request.url else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotFindHost))
            return
        }
        let recorded = RecordedRequest(
            method: request.httpMethod ?? "GET",
            url: url.absoluteString,
            headers: request.allHTTPHeaderFields ?? [:],
            body: request.httpBody ?? request.httpBodyStream.map(Self.readAll)
        )
        switch server.answer(recorded) {
        case .respond(let status, let body, let headers):
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            client?.urlProtocol(self, didLoad: Data(body.utf8))
            client?.urlProtocolDidFinishLoading(self)
        case .fail(let code):
            // As URLSession reports it: the failing URL in the user info.
            client?.urlProtocol(self, didFailWithError: URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: url]))
        case .hang:
            isHanging.withLock { $0 = true }
        }
    }

    private let isHanging = Locked(false)

    override func stopLoading() {
        if isHanging.withLock({ $0 }) { server?.abandoned() }
    }

    /// Apple platforms hand the stub the body as a stream; Linux as `httpBody`.
    private static func readAll(_ stream: InputStream) -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
