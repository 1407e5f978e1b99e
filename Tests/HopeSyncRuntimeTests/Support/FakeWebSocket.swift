import Foundation
import HopeSyncTestSupport

@_spi(Transport) @testable import HopeSync

/// A WebSocket with a test for a server: what the client sends is recorded, what the test
/// sends the client receives, and the test can cut it.
final class FakeWebSocket: WebSocketConnection {
    private let inbox = WebSocketInbox()
    private let sentMessages = Locked<[WebSocketMessage]>([])

    func send(_ message: WebSocketMessage) async throws {
        guard !inbox.hasEnded else { throw WebSocketError.connectionClosed }
        sentMessages.withLock { $0.append(message) }
    }

    func receive() async throws -> WebSocketMessage {
        try await inbox.receive()
    }

    func close() {
        inbox.end(WebSocketError.connectionClosed)
    }

    var isClosed: Bool { inbox.hasEnded }

    /// The frames as sent, undecoded.
    var sentFrames: [WebSocketMessage] { sentMessages.value }

    /// What the client sent, decoded.
    func sent(_ version: RealtimeProtocolVersion = .v2) -> [PhoenixMessage] {
        sentMessages.value.compactMap { try? PhoenixCodec(version: version).decode($0) }
    }

    func serverSends(_ message: PhoenixMessage, _ version: RealtimeProtocolVersion = .v2) {
        inbox.deliver(PhoenixCodec(version: version).encode(message))
    }

    func serverSends(_ frame: WebSocketMessage) {
        inbox.deliver(frame)
    }

    /// The connection drops.
    func serverCuts() {
        inbox.end(WebSocketError("cut by the test"))
    }
}

/// A socket factory that makes ``FakeWebSocket``s and keeps them, newest last.
final class FakeSockets: Sendable {
    private let made = Locked<[FakeWebSocket]>([])

    var factory: WebSocketFactory {
        { _ in
            let socket = FakeWebSocket()
            self.made.withLock { $0.append(socket) }
            return socket
        }
    }

    var all: [FakeWebSocket] { made.value }
    var latest: FakeWebSocket? { made.value.last }
}
