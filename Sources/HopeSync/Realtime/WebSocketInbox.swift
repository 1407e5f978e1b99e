import HopeSyncLocking

/// The messages a WebSocket received and not yet taken, in order, and how it ended: what a
/// reading thread (or a test's fake server) hands to `receive()`.
package final class WebSocketInbox: Sendable {
    private struct State {
        var messages: [WebSocketMessage] = []
        var waiter: CheckedContinuation<WebSocketMessage, any Error>?
        var ended: (any Error)?
    }

    private let state = Locked(State())

    package init() {}

    package func deliver(_ message: WebSocketMessage) {
        let waiter: CheckedContinuation<WebSocketMessage, any Error>? = state.withLock { state in
            guard state.ended == nil else { return nil }
            guard let waiter = state.waiter else {
                state.messages.append(message)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: message)
    }

    /// No more messages: those queued are still taken, then `receive` throws `error`.
    package func end(_ error: any Error) {
        let waiter: CheckedContinuation<WebSocketMessage, any Error>? = state.withLock { state in
            guard state.ended == nil else { return nil }
            state.ended = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }

    package var hasEnded: Bool { state.withLock { $0.ended != nil } }

    package func receive() async throws -> WebSocketMessage {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<WebSocketMessage, any Error>? = state.withLock { state in
                if !state.messages.isEmpty { return .success(state.messages.removeFirst()) }
                if let ended = state.ended { return .failure(ended) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
