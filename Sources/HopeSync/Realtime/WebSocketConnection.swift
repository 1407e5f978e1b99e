import Foundation

/// A message of a WebSocket (RFC 6455): the two kinds an application sees.
package enum WebSocketMessage: Sendable, Equatable {
    case text(String)
    case binary(Data)
}

/// An open WebSocket, as the Realtime channel uses one. Two implementations share the codec and
/// the channel: Foundation's `URLSessionWebSocketTask` on Apple platforms, and a small RFC 6455
/// client over POSIX sockets where Foundation has none (Linux); tests use a fake.
package protocol WebSocketConnection: Sendable {
    /// Sends one message; throws when the connection is gone.
    func send(_ message: WebSocketMessage) async throws
    /// The next message from the server, in order; throws once the connection has ended.
    func receive() async throws -> WebSocketMessage
    /// Closes the connection (with a close frame when it can); a pending receive throws.
    func close()
}

/// Opens a WebSocket to a URL.
package typealias WebSocketFactory = @Sendable (URL) async throws -> any WebSocketConnection

/// Why a WebSocket ended or could not open.
package struct WebSocketError: Error, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }

    package static let connectionClosed = WebSocketError("the WebSocket is closed")
}
