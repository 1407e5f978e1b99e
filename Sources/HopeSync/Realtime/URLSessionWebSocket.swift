import Foundation

#if canImport(Darwin)
    /// Foundation's WebSocket, on Apple platforms (`ws://` and `wss://`). watchOS refuses
    /// WebSockets to ordinary apps (TN3135): a watch app polls.
    package final class URLSessionWebSocket: WebSocketConnection, @unchecked Sendable {
        // URLSessionWebSocketTask is thread-safe; it is only called, never mutated here.
        private let task: URLSessionWebSocketTask

        package init(url: URL, session: URLSession = .shared) {
            task = session.webSocketTask(with: url)
            task.resume()
        }

        package func send(_ message: WebSocketMessage) async throws {
            switch message {
            case .text(let text): try await task.send(.string(text))
            case .binary(let data): try await task.send(.data(data))
            }
        }

        package func receive() async throws -> WebSocketMessage {
            switch try await task.receive() {
            case .string(let text): return .text(text)
            case .data(let data): return .binary(data)
            @unknown default: throw WebSocketError("a WebSocket message of a kind this client does not know")
            }
        }

        package func close() {
            task.cancel(with: .normalClosure, reason: nil)
        }
    }
#endif

/// The platform's WebSocket: Foundation's on Apple platforms, the POSIX client elsewhere.
package let systemWebSocket: WebSocketFactory = { url in
    #if canImport(Darwin)
        URLSessionWebSocket(url: url)
    #else
        try await SocketWebSocket.connect(to: url)
    #endif
}
