import Foundation
import HopeSyncModel

/// One socket's life on a user's poke topic: the join (private, with the access token), then
/// heartbeats, token refreshes and broadcasts until something ends it. Everything that happens
/// (a frame, the socket ending, a timer) is one input to one loop, so the state is the loop's
/// own and the order is the order of the inputs.
@available(watchOS, unavailable)
struct RealtimeSession {
    let settings: RealtimePokes
    let socket: any WebSocketConnection
    let userID: UUID
    let credentials: @Sendable () async -> Credentials?

    /// Why a session ended.
    struct Ending: Error, Equatable, CustomStringConvertible {
        let description: String

        static let joinTimedOut = Ending(description: "the join was not answered in time")
        static let heartbeatUnanswered = Ending(description: "a heartbeat was not answered before the next was due")
        static let channelErrored = Ending(description: "the server reported an error on the channel (phx_error)")
        static let channelClosed = Ending(description: "the server closed the channel (phx_close)")
        static let signedOut = Ending(description: "the user is no longer signed in")
        static func joinRefused(_ reason: String) -> Ending { Ending(description: "the join was refused: \(reason)") }
        static func system(_ message: String) -> Ending { Ending(description: "the server ended the channel: \(message)") }
        static func socket(_ error: any Error) -> Ending { Ending(description: "the socket ended: \(error)") }
    }

    private enum Input: Sendable {
        case frame(WebSocketMessage)
        case socketEnded(any Error)
        case joinDeadline
        case heartbeatDue
        case refreshDue
        case announce(PokeEvent)
    }

    /// Runs until the session ends, which it always does by throwing: an ``Ending``, or
    /// cancellation. `onEvent` hears `.connected` once joined, then each poke.
    func serve(token: String, onEvent: (PokeEvent) -> Void) async throws {
        let codec = PhoenixCodec(version: settings.protocolVersion)
        let topic = RealtimePokes.topic(for: userID)
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        var tasks: [Task<Void, Never>] = []
        let session = UUID()
        defer {
            settings.outbox.close(for: userID, session: session)
            for task in tasks { task.cancel() }
            input.finish()
        }
        tasks.append(
            Task { [socket] in
                while true {
                    do {
                        input.yield(.frame(try await socket.receive()))
                    } catch {
                        input.yield(.socketEnded(error))
                        return
                    }
                }
            })

        var lastRef = 0
        func nextRef() -> String {
            lastRef += 1
            return String(lastRef)
        }
        let joinRef = nextRef()
        var token = token
        try await socket.send(
            codec.encode(PhoenixMessage(joinRef: joinRef, ref: joinRef, topic: topic, event: "phx_join", payload: Self.join(token))))
        tasks.append(after(settings.joinTimeout) { input.yield(.joinDeadline) })

        var joined = false
        var unansweredHeartbeat: String?
        for await next in inputs {
            switch next {
            case .frame(let frame):
                guard let message = try? codec.decode(frame) else { continue }
                if message.topic == "phoenix" {
                    if message.replyStatus != nil, message.ref == unansweredHeartbeat { unansweredHeartbeat = nil }
                    continue
                }
                guard message.topic == topic else { continue }
                switch message.event {
                case "phx_reply" where message.ref == joinRef && !joined:
                    guard message.replyStatus == "ok" else {
                        throw Ending.joinRefused(message.payload["response"]?["reason"]?.text ?? message.payload.serialized())
                    }
                    joined = true
                    settings.outbox.open(for: userID, session: session) { input.yield(.announce($0)) }
                    onEvent(.connected)
                    tasks.append(ticker(settings.heartbeatInterval) { input.yield(.heartbeatDue) })
                    if let delay = refreshDelay(for: token) { tasks.append(after(delay) { input.yield(.refreshDue) }) }
                case "broadcast":
                    if joined, let poke = Self.poke(in: message.payload) { onEvent(poke) }
                case "phx_error":
                    throw Ending.channelErrored
                case "phx_close":
                    throw Ending.channelClosed
                case "system":
                    if message.payload["status"]?.text == "error" { throw Ending.system(message.payload["message"]?.text ?? "no message") }
                default:
                    continue
                }
            case .socketEnded(let error):
                throw Ending.socket(error)
            case .joinDeadline:
                if !joined { throw Ending.joinTimedOut }
            case .heartbeatDue:
                if unansweredHeartbeat != nil { throw Ending.heartbeatUnanswered }
                let ref = nextRef()
                unansweredHeartbeat = ref
                try await socket.send(
                    codec.encode(PhoenixMessage(joinRef: nil, ref: ref, topic: "phoenix", event: "heartbeat", payload: .object([]))))
            case .announce(let poke):
                try await socket.send(
                    codec.encode(
                        PhoenixMessage(joinRef: joinRef, ref: nextRef(), topic: topic, event: "broadcast", payload: Self.broadcast(poke))))
            case .refreshDue:
                guard let fresh = await credentials(), fresh.userID == userID else { throw Ending.signedOut }
                let refreshed = fresh.accessToken != token
                if refreshed {
                    token = fresh.accessToken
                    try await socket.send(
                        codec.encode(
                            PhoenixMessage(
                                joinRef: joinRef, ref: nextRef(), topic: topic, event: "access_token",
                                payload: .object([("access_token", .string(token))]))))
                }
                // No new token yet (the auth library refreshes it in its own time): ask again soon.
                if let delay = refreshed ? refreshDelay(for: token) : settings.tokenRetryInterval {
                    tasks.append(after(delay) { input.yield(.refreshDue) })
                }
            }
        }
        throw CancellationError()
    }

    /// The join Realtime expects of a private channel: no acknowledgements, no presence, no
    /// database changes, the user's token.
    static func join(_ token: String) -> JSONValue {
        .object([
            (
                "config",
                .object([
                    ("broadcast", .object([("ack", .bool(false)), ("self", .bool(false))])),
                    ("presence", .object([("enabled", .bool(false))])),
                    ("postgres_changes", .array([])),
                    ("private", .bool(true)),
                ])
            ),
            ("access_token", .string(token)),
        ])
    }

    /// A client broadcast of `poke` to the topic's other channels: what the generated SQL's
    /// `sync_poke_users` sends, from the device.
    static func broadcast(_ poke: PokeEvent) -> JSONValue {
        var body: [(String, JSONValue)] = []
        if let table = poke.table { body.append(("table", .string(table))) }
        if let serverSeq = poke.serverSeq { body.append(("server_seq", .number(String(serverSeq)))) }
        return .object([("type", .string("broadcast")), ("event", .string("poke")), ("payload", .object(body))])
    }

    /// The poke a broadcast carries: its `poke` event, with the table and server_seq when given.
    static func poke(in payload: JSONValue) -> PokeEvent? {
        guard payload["event"]?.text == "poke" else { return nil }
        let body = payload["payload"]
        let serverSeq: Int64? =
            switch body?["server_seq"] {
            case .number(let literal)?: Int64(literal)
            case .string(let text)?: Int64(text)
            default: nil
            }
        return .poke(table: body?["table"]?.text, serverSeq: serverSeq)
    }

    /// When to send a fresh token: `tokenRefreshLead` before this one expires (at once if that
    /// is past); nil for a token without an expiry.
    private func refreshDelay(for token: String) -> Duration? {
        guard let expiry = AccessTokenExpiry.date(of: token) else { return nil }
        let seconds = expiry.timeIntervalSince(settings.now()) - settings.tokenRefreshLead.seconds
        return .milliseconds(max(0, Int64(seconds * 1_000)))
    }

    private func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        let sleep = settings.sleep
        return Task {
            do { try await sleep(delay) } catch { return }
            body()
        }
    }

    private func ticker(_ interval: Duration, _ body: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        let sleep = settings.sleep
        return Task {
            while true {
                do { try await sleep(interval) } catch { return }
                body()
            }
        }
    }
}
