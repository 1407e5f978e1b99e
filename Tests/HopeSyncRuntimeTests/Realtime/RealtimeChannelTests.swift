import Foundation
import HopeSyncModel
import HopeSyncTestSupport
import Testing

@_spi(Transport) @testable import HopeSync

/// The Realtime channel on fake sockets, its timers on a manual sleeper: the private join with
/// the token, pokes from text and binary broadcasts, heartbeats (an unanswered one reconnects),
/// token refreshes before expiry, and every way a session ends (phx_error, phx_close, a system
/// error, the socket cut, no answer to the join) followed by a reconnection with backoff.
@Suite struct RealtimeChannelTests {
    let user = UUID()
    let sockets = FakeSockets()
    let sleeper = ManualSleeper()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let signIn = Locked<Credentials?>(nil)

    init() {
        signIn.value = Credentials(userID: user, accessToken: token(expiresIn: 3_600))
    }

    var settings: RealtimePokes {
        var settings = RealtimePokes(projectURL: URL(string: "https://example.supabase.co")!, apiKey: "anon-key")
        settings.makeSocket = sockets.factory
        settings.sleep = sleeper.sleep
        settings.jitter = { $0 }
        settings.now = { [now] in now }
        return settings
    }

    var topic: String { "realtime:sync:\(user.uuidString.lowercased())" }

    /// A JWT whose payload holds `exp`; the signature is the server's business.
    func token(expiresIn seconds: Int, tag: String = "a") -> String {
        let claims = #"{"exp":\#(Int(now.timeIntervalSince1970) + seconds),"tag":"\#(tag)"}"#
        let payload = Data(claims.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "eyJhbGciOiJIUzI1NiJ9.\(payload).signature"
    }

    /// Starts listening; every event is kept, in order.
    func listen() -> (events: Locked<[PokeEvent]>, task: Task<Void, Never>) {
        let stream = settings.events(for: user) { [signIn] in signIn.value }
        let events = Locked<[PokeEvent]>([])
        let task = Task {
            for await event in stream { events.withLock { $0.append(event) } }
        }
        return (events, task)
    }

    /// The newest socket once it has sent its join; answered `status`.
    func join(answer status: String = "ok", socket number: Int = 1) async throws -> (FakeWebSocket, PhoenixMessage) {
        #expect(await eventually { sockets.all.count >= number && !sockets.all[number - 1].sent().isEmpty })
        let socket = try #require(sockets.all.count >= number ? sockets.all[number - 1] : nil)
        let join = try #require(socket.sent().first)
        let response: JSONValue =
            status == "ok" ? .object([("postgres_changes", .array([]))]) : .object([("reason", .string("Unauthorized: no"))])
        socket.serverSends(
            PhoenixMessage(
                joinRef: join.joinRef, ref: join.ref, topic: join.topic, event: "phx_reply",
                payload: .object([("status", .string(status)), ("response", response)])))
        return (socket, join)
    }

    func poke(_ table: String, _ serverSeq: Int) -> PhoenixMessage {
        PhoenixMessage(
            joinRef: nil, ref: nil, topic: topic, event: "broadcast",
            payload: .object([
                ("type", .string("broadcast")), ("event", .string("poke")),
                ("payload", .object([("table", .string(table)), ("server_seq", .number(String(serverSeq)))])),
            ]))
    }

    @Test func itJoinsPrivatelyWithTheTokenAndHearsPokes() async throws {
        let (events, task) = listen()
        defer { task.cancel() }
        let (socket, join) = try await join()
        #expect(join.event == "phx_join" && join.topic == topic)
        #expect(join.payload["config"]?["private"] == .bool(true))
        #expect(join.payload["access_token"]?.text == signIn.value?.accessToken)
        #expect(await eventually { events.value == [.connected] })
        socket.serverSends(poke("activities", 12))
        let userBroadcast =
            [0x04, UInt8(topic.utf8.count), 4, 0, 1] + Array(topic.utf8) + Array("poke".utf8)
            + Array(#"{"table":"sessions","server_seq":13}"#.utf8)
        socket.serverSends(.binary(Data(userBroadcast)))
        #expect(
            await eventually {
                events.value == [.connected, .poke(table: "activities", serverSeq: 12), .poke(table: "sessions", serverSeq: 13)]
            })
        #expect(sockets.all.count == 1)
    }

    @Test func itSpeaksVersion1WhenToldTo() async throws {
        var settings = settings
        settings.protocolVersion = .v1
        #expect(settings.socketURL.absoluteString == "wss://example.supabase.co/realtime/v1/websocket?apikey=anon-key&vsn=1.0.0")
        let stream = settings.events(for: user) { [signIn] in signIn.value }
        let task = Task { for await _ in stream {} }
        defer { task.cancel() }
        #expect(await eventually { sockets.latest.map { !$0.sent(.v1).isEmpty } ?? false })
        guard case .text(let text)? = try #require(sockets.latest).sentFrames.first, case .object = try JSONValue(parsing: text) else {
            Issue.record("version 1 joins with an object")
            return
        }
    }

    @Test func anUnansweredHeartbeatEndsTheConnectionAndAnotherIsMade() async throws {
        let (events, task) = listen()
        defer { task.cancel() }
        let (socket, _) = try await join()
        func heartbeats() -> [PhoenixMessage] { socket.sent().filter { $0.topic == "phoenix" && $0.event == "heartbeat" } }
        #expect(await sleeper.waitUntilSleeping(.seconds(25)))
        sleeper.elapse(.seconds(25))
        #expect(await eventually { heartbeats().count == 1 })
        let first = try #require(heartbeats().first)
        socket.serverSends(
            PhoenixMessage(
                joinRef: nil, ref: first.ref, topic: "phoenix", event: "phx_reply",
                payload: .object([("status", .string("ok")), ("response", .object([]))])))
        #expect(await sleeper.waitUntilSleeping(.seconds(25)))
        sleeper.elapse(.seconds(25))
        #expect(await eventually { heartbeats().count == 2 })
        #expect(events.value == [.connected])
        // The second goes unanswered: at the third, the connection is given up.
        #expect(await sleeper.waitUntilSleeping(.seconds(25)))
        sleeper.elapse(.seconds(25))
        #expect(await eventually { events.value == [.connected, .disconnected] })
        #expect(socket.isClosed)
        #expect(await sleeper.waitUntilSleeping(.seconds(1)))
        sleeper.elapse(.seconds(1))
        _ = try await join(socket: 2)
        #expect(await eventually { events.value == [.connected, .disconnected, .connected] })
    }

    @Test func theHeartbeatIsNeverRarerThanRealtimeAllows() {
        // Realtime drops a socket silent for longer than 25 s.
        var pokes = settings
        pokes.heartbeatInterval = .seconds(60)
        #expect(pokes.heartbeatInterval == .seconds(25))
        pokes.heartbeatInterval = .seconds(10)
        #expect(pokes.heartbeatInterval == .seconds(10))
    }

    @Test func everyWayASessionEndsReconnects() async throws {
        let (events, task) = listen()
        defer { task.cancel() }
        let endings: [(String, (FakeWebSocket, PhoenixMessage) -> Void)] = [
            (
                "phx_error",
                {
                    $0.serverSends(
                        PhoenixMessage(joinRef: $1.joinRef, ref: $1.joinRef, topic: $1.topic, event: "phx_error", payload: .object([])))
                }
            ),
            (
                "phx_close",
                {
                    $0.serverSends(
                        PhoenixMessage(joinRef: $1.joinRef, ref: $1.joinRef, topic: $1.topic, event: "phx_close", payload: .object([])))
                }
            ),
            (
                "system error",
                {
                    $0.serverSends(
                        PhoenixMessage(
                            joinRef: $1.joinRef, ref: nil, topic: $1.topic, event: "system",
                            payload: .object([
                                ("extension", .string("system")), ("status", .string("error")),
                                ("message", .string("Token has expired 0 seconds ago")),
                            ])))
                }
            ),
            ("socket cut", { socket, _ in socket.serverCuts() }),
        ]
        for (index, (name, end)) in endings.enumerated() {
            let (socket, join) = try await join(socket: index + 1)
            #expect(await eventually { events.value.filter { $0 == .connected }.count == index + 1 }, "\(name)")
            end(socket, join)
            #expect(await eventually { events.value.filter { $0 == .disconnected }.count == index + 1 }, "\(name)")
            #expect(await eventually { socket.isClosed }, "\(name)")
            // Joined before it ended: the wait is the first one again.
            #expect(await sleeper.waitUntilSleeping(.seconds(1)), "\(name)")
            sleeper.elapse(.seconds(1))
        }
        _ = try await join(socket: endings.count + 1)
        #expect(await eventually { events.value.filter { $0 == .connected }.count == endings.count + 1 })
    }

    @Test func refusedJoinsBackOffDoublingAndAreNoDisconnection() async throws {
        let (events, task) = listen()
        defer { task.cancel() }
        for (attempt, wait) in [1, 2, 4, 8].enumerated() {
            _ = try await join(answer: "error", socket: attempt + 1)
            #expect(await sleeper.waitUntilSleeping(.seconds(wait)), "attempt \(attempt + 1)")
            sleeper.elapse(.seconds(wait))
        }
        // A join unanswered in time fails the same way.
        #expect(await eventually { sockets.all.count == 5 })
        #expect(await sleeper.waitUntilSleeping(.seconds(10)))
        sleeper.elapse(.seconds(10))
        #expect(await sleeper.waitUntilSleeping(.seconds(16)))
        #expect(events.value.isEmpty)
        #expect(sockets.all.allSatisfy { $0.isClosed })
    }

    @Test func theTokenIsRefreshedBeforeItExpires() async throws {
        signIn.value = Credentials(userID: user, accessToken: token(expiresIn: 120))
        let (_, task) = listen()
        defer { task.cancel() }
        let (socket, join) = try await join()
        func refreshes() -> [PhoenixMessage] { socket.sent().filter { $0.event == "access_token" } }
        // A minute before it expires; the credentials still give the same token: ask again soon.
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        sleeper.elapse(.seconds(60))
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        #expect(refreshes().isEmpty)
        let fresh = token(expiresIn: 3_600, tag: "b")
        signIn.value = Credentials(userID: user, accessToken: fresh)
        sleeper.elapse(.seconds(5))
        #expect(await eventually { refreshes().count == 1 })
        let refresh = try #require(refreshes().first)
        #expect(refresh.topic == topic && refresh.joinRef == join.joinRef && refresh.payload["access_token"]?.text == fresh)
        // The next refresh: a minute before the new token expires.
        #expect(await sleeper.waitUntilSleeping(.seconds(3_540)))
        #expect(!socket.isClosed)
    }

    @Test func signingOutEndsTheConnection() async throws {
        signIn.value = Credentials(userID: user, accessToken: token(expiresIn: 120))
        let (events, task) = listen()
        defer { task.cancel() }
        let (socket, _) = try await join()
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        signIn.value = nil
        sleeper.elapse(.seconds(60))
        #expect(await eventually { events.value == [.connected, .disconnected] && socket.isClosed })
        // Signed out, it does not connect; it looks again after the wait.
        #expect(await sleeper.waitUntilSleeping(.seconds(1)))
        sleeper.elapse(.seconds(1))
        #expect(await sleeper.waitUntilSleeping(.seconds(2)))
        #expect(sockets.all.count == 1)
    }

    @Test func droppingTheStreamClosesTheSocket() async throws {
        let (_, task) = listen()
        let (socket, _) = try await join()
        task.cancel()
        #expect(await eventually { socket.isClosed })
    }
}
