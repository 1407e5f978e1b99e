import Foundation

/// Keeps one user's poke topic joined: a session at a time, and when one ends, another after
/// a wait that doubles from `reconnectBase` to `reconnectCeiling` (jittered, so devices that
/// lost the server together do not come back together), back to the base once a join
/// succeeds. The engine hears `.connected` at each join and `.disconnected` when a joined
/// session ends.
@available(watchOS, unavailable)
struct RealtimeChannel {
    let settings: RealtimePokes
    let userID: UUID
    let credentials: @Sendable () async -> Credentials?

    func keepJoined(_ events: AsyncStream<PokeEvent>.Continuation) async {
        var failures = 0
        while !Task.isCancelled {
            var joined = false
            if let user = await credentials(), user.userID == userID {
                do {
                    let socket = try await settings.makeSocket(settings.socketURL)
                    defer { socket.close() }
                    let session = RealtimeSession(settings: settings, socket: socket, userID: userID, credentials: credentials)
                    try await session.serve(token: user.accessToken) { event in
                        if event == .connected {
                            joined = true
                            failures = 0
                        }
                        events.yield(event)
                    }
                } catch {
                    settings.log("realtime: \(error)")
                }
            }
            if joined { events.yield(.disconnected) }
            failures += 1
            do { try await settings.sleep(settings.jitter(reconnectDelay(afterFailures: failures))) } catch { return }
        }
    }

    func reconnectDelay(afterFailures failures: Int) -> Duration {
        .doubling(from: settings.reconnectBase, afterFailures: failures, upTo: settings.reconnectCeiling)
    }
}
