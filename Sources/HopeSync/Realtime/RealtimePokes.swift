import Foundation

/// Pokes through Supabase Realtime: a private channel on the user's topic (`sync:<user id>`),
/// which the generated SQL broadcasts to after every write, or this device after its own pushes
/// (``announcesWrites``). Hand it to the engine
/// (`SyncEngine(store:transport:pokes:credentials:)`): a poke pulls at once, and while the
/// channel is up the idle poll slows to ``SyncConfiguration/pollIntervalWithPokes``. watchOS
/// does not allow WebSockets to ordinary apps: a watch app polls.
@available(watchOS, unavailable)
@_spi(Transport) public struct RealtimePokes: PokeSource {
    /// The project's URL (`https://<ref>.supabase.co`): the socket is its
    /// `/realtime/v1/websocket`, with `wss` for `https` and `ws` for `http`.
    public var projectURL: URL
    /// The project's anon (publishable) key, which Realtime wants on the socket.
    public var apiKey: String
    /// 2.0.0 (arrays and binary broadcasts) unless set to 1.0.0.
    public var protocolVersion: RealtimeProtocolVersion = .v2
    /// How often the socket says it is alive; Realtime drops a socket silent for longer than
    /// 25 s, so it is at most that. A heartbeat still unanswered when the next is due ends the
    /// connection (and the engine polls at its usual pace until it is back).
    public var heartbeatInterval: Duration = .seconds(25) {
        didSet { heartbeatInterval = min(max(heartbeatInterval, .milliseconds(100)), .seconds(25)) }
    }
    /// How long a join waits for its answer.
    public var joinTimeout: Duration = .seconds(10)
    /// How long before the token expires a fresh one is sent (Realtime ends a channel whose
    /// token expires).
    public var tokenRefreshLead: Duration = .seconds(60)
    /// How soon to ask again when the credentials still give the old token.
    public var tokenRetryInterval: Duration = .seconds(5)
    /// The first wait before connecting again after a failure; it doubles up to the ceiling.
    public var reconnectBase: Duration = .seconds(1)
    public var reconnectCeiling: Duration = .seconds(30)
    /// Where the channel says why it reconnects; nowhere by default.
    public var log: @Sendable (String) -> Void = { _ in }
    /// Whether this device broadcasts a poke for each of its pushes itself, on its joined
    /// channel, so that the server skips its own (see ``PokeSource/announcesWrites``). Realtime
    /// lets it when the `realtime.messages` insert policy does (the generated SQL's
    /// `sync_pokes_send_own`).
    public var announcesWrites = true
    /// The joined sessions, shared by every copy of this value.
    let outbox = PokeOutbox()

    package var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    package var now: @Sendable () -> Date = { Date() }
    /// Spreads reconnections: each wait is taken between half and all of itself.
    package var jitter: @Sendable (Duration) -> Duration = { $0 * Double.random(in: 0.5...1) }
    package var makeSocket: WebSocketFactory = systemWebSocket

    public init(projectURL: URL, apiKey: String) {
        self.projectURL = projectURL
        self.apiKey = apiKey
    }

    /// The channel topic of a user's pokes, as a client joins it.
    static func topic(for user: UUID) -> String {
        "realtime:sync:\(user.uuidString.lowercased())"
    }

    var socketURL: URL {
        var components = URLComponents(url: projectURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = components.scheme?.lowercased() == "https" || components.scheme?.lowercased() == "wss" ? "wss" : "ws"
        components.path =
            components.path.hasSuffix("/") ? components.path + "realtime/v1/websocket" : components.path + "/realtime/v1/websocket"
        components.queryItems = [
            URLQueryItem(name: "apikey", value: apiKey), URLQueryItem(name: "vsn", value: protocolVersion.description),
        ]
        return components.url ?? projectURL
    }

    /// Broadcasts `poke` on `userID`'s joined channel. With none joined it returns false and
    /// holds the poke (coalesced by table) for the user's next join.
    public func announce(_ poke: PokeEvent, for userID: UUID) -> Bool {
        announcesWrites && outbox.send(poke, to: userID)
    }

    public func events(for userID: UUID, credentials: @escaping @Sendable () async -> Credentials?) -> AsyncStream<PokeEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PokeEvent.self)
        let channel = RealtimeChannel(settings: self, userID: userID, credentials: credentials)
        let task = Task {
            await channel.keepJoined(continuation)
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
