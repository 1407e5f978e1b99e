import Foundation

/// The opening handshake of RFC 6455 for a `ws://` URL: the client's upgrade request, and the
/// check of the server's answer (101, the upgrade headers, `Sec-WebSocket-Accept` derived
/// from the request's key).
struct WebSocketHandshake {
    struct Failure: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// The base64 of 16 random bytes.
    let key: String

    init(key: String = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()) {
        self.key = key
    }

    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    var expectedAccept: String { Data(SHA1.digest(Array((key + Self.guid).utf8))).base64EncodedString() }

    func request(for url: URL) throws -> [UInt8] {
        guard let host = url.host else { throw Failure(description: "\(url) has no host") }
        let port = url.port.map { ":\($0)" } ?? ""
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        let lines = [
            "GET \(target) HTTP/1.1", "Host: \(host)\(port)", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13", "User-Agent: hope-sync",
        ]
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Checks the response's head (the status line and headers, up to the blank line).
    func check(responseHead: String) throws {
        let lines = responseHead.components(separatedBy: "\r\n")
        let status = lines.first ?? ""
        guard status.hasPrefix("HTTP/1.1 101") else { throw Failure(description: "the server answered \(status) to the upgrade") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        guard headers["upgrade"]?.lowercased() == "websocket",
            headers["connection"]?.lowercased().split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: .whitespaces) == "upgrade"
            }) == true
        else { throw Failure(description: "the server's answer does not upgrade to a WebSocket") }
        guard headers["sec-websocket-accept"] == expectedAccept else {
            throw Failure(description: "the server's Sec-WebSocket-Accept does not match the key sent")
        }
    }
}
