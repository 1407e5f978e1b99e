import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncPostgresCluster
import HopeSyncTestSupport
import Testing

/// Two devices of one user over PostgreSQL with the generated SQL, each hearing pokes from the
/// test Realtime server: a save on one reaches the other by its poke with no poll at all, the
/// poke the saving device's own broadcast (the database sends none) or the database's; with
/// every poke dropped it arrives by the poll; with the sockets cut nothing is lost or doubled and
/// the rejoin pulls; and a user cannot join another user's topic. No test waits for real time:
/// each device's poll (and each channel's reconnection) waits on a sleeper only the test ends.
@Suite struct PokeEndToEndTests {
    let server: TestServer
    let realtime: RealtimeTestServer
    let user = UUID()

    init() throws {
        server = try TestServer(realtime: true)
        realtime = try #require(server.realtime)
    }

    /// A device whose poll waits on `polls` and whose channel's reconnections wait on `channel`.
    struct PokedDevice {
        let device: Device
        let polls: ManualSleeper
        let channel: ManualSleeper
    }

    func pokes(sleeper: ManualSleeper, announcing: Bool = true) async throws -> RealtimePokes {
        var pokes = RealtimePokes(projectURL: realtime.url, apiKey: try await realtime.anonKey())
        pokes.announcesWrites = announcing
        pokes.sleep = sleeper.sleep
        pokes.jitter = { $0 }
        return pokes
    }

    /// A started device, once its channel is joined and the pass its join asked for is done.
    func joinedDevice(_ name: String, announcing: Bool = true) async throws -> PokedDevice {
        let polls = ManualSleeper()
        let channel = ManualSleeper()
        var configuration = SyncConfiguration()
        configuration.sleep = polls.sleep
        let device = try Device(
            name, user: user, transport: server.transport, configuration: configuration,
            pokes: try await pokes(sleeper: channel, announcing: announcing),
            accessToken: try await realtime.token(for: user))
        await device.engine.start()
        // The minute's poll: the channel is joined and the pass that followed is over.
        #expect(await polls.waitUntilSleeping(configuration.pollIntervalWithPokes))
        return PokedDevice(device: device, polls: polls, channel: channel)
    }

    func names(on device: Device) throws -> Set<String> {
        Set(try device.store.read { try $0.fetchAll(Activity.self) }.map(\.name))
    }

    /// Every table of `device` is the server's, row for row, and nothing waits to be pushed.
    func expectSameAsServer(_ device: Device) async throws {
        for table in GeneratedSchema.tables {
            let serverRows = try await server.rows(of: table, for: user)
            #expect(try device.rows(of: table) == serverRows, "\(table.name) on \(device.name)")
        }
        #expect(try device.dirtyCount() == 0)
    }

    /// The database's pokes of the user's topic so far.
    func databasePokes() throws -> Int {
        Int(try server.database.connect().execute("select count(*) from realtime.messages where event = 'poke'").scalar ?? "") ?? -1
    }

    @Test(arguments: [true, false])
    func aSaveOnOneDeviceReachesTheOtherByItsPokeWithoutAPoll(announcing: Bool) async throws {
        defer { realtime.stop() }
        let a = try await joinedDevice("a", announcing: announcing)
        let b = try await joinedDevice("b")
        let clientBroadcasts = try await realtime.stats()["client_broadcasts"] ?? 0
        // The first write after a quiet spell is pushed at once; its poke wakes b's pull. No
        // sleeper is ever let go, so no poll can have brought it.
        try await a.device.store.write { _ = try $0.save(Activity(name: "Started on a")) }
        #expect(try await eventually { try names(on: b.device).contains("Started on a") })
        try await expectSameAsServer(b.device)
        // Announcing, a sent the poke and the database none; otherwise the database poked.
        #expect(try await realtime.stats()["client_broadcasts"] == clientBroadcasts + (announcing ? 1 : 0))
        #expect(try databasePokes() == (announcing ? 0 : 1))
        await a.device.engine.stop()
        await b.device.engine.stop()
    }

    @Test func withEveryPokeDroppedTheSaveArrivesByThePoll() async throws {
        defer { realtime.stop() }
        let a = try await joinedDevice("a")
        let b = try await joinedDevice("b")
        try await realtime.setFaults(drop: 1)
        let dropped = try await realtime.stats()["dropped"] ?? 0
        try await a.device.store.write { _ = try $0.save(Activity(name: "Poke lost")) }
        // b's copy of a's broadcast is dropped (a announces its push and does not hear itself).
        #expect(try await eventually { try await realtime.stats()["dropped"] ?? 0 >= dropped + 1 })
        #expect(try !names(on: b.device).contains("Poke lost"))
        b.polls.elapse(.seconds(60))
        #expect(try await eventually { try names(on: b.device).contains("Poke lost") })
        try await expectSameAsServer(b.device)
        await a.device.engine.stop()
        await b.device.engine.stop()
    }

    @Test func socketsCutMidRunLoseAndDoubleNothingAndTheRejoinPulls() async throws {
        defer { realtime.stop() }
        let a = try await joinedDevice("a")
        let b = try await joinedDevice("b")
        for number in 1...3 {
            try await a.device.store.write { _ = try $0.save(Activity(name: "Before \(number)")) }
            try await a.device.sync()
        }
        #expect(try await eventually { try names(on: b.device).isSuperset(of: ["Before 1", "Before 2", "Before 3"]) })

        try await realtime.killSockets()
        // b hears the disconnection, pulls once, polls every five seconds again and waits to
        // reconnect (its channel's sleeper, which only the test lets go).
        #expect(await b.polls.waitUntilSleeping(.seconds(5)))
        #expect(await b.channel.waitUntilSleeping(.seconds(1)))
        for number in 1...3 {
            try await a.device.store.write { _ = try $0.save(Activity(name: "While cut \(number)")) }
            try await a.device.sync()
        }
        // Nobody pokes b now and its poll has not run.
        #expect(try names(on: b.device).isDisjoint(with: ["While cut 1", "While cut 2", "While cut 3"]))

        let joins = try await realtime.stats()["joins"] ?? 0
        b.channel.elapse(.seconds(1))
        #expect(try await eventually { try await realtime.stats()["joins"] == joins + 1 })
        // The rejoin pulls everything at once, with no poll.
        #expect(try await eventually { try names(on: b.device).isSuperset(of: ["While cut 1", "While cut 2", "While cut 3"]) })
        #expect(await b.polls.waitUntilSleeping(.seconds(60)))
        let activities = try await b.device.store.read { try $0.fetchAll(Activity.self) }
        #expect(activities.count == 6)
        #expect(Set(activities.map(\.name)).count == 6)
        try await expectSameAsServer(b.device)
        try await a.device.sync()
        try await expectSameAsServer(a.device)
        await a.device.engine.stop()
        await b.device.engine.stop()
    }

    /// An announcement that finds no joined channel (it dropped between a push and its
    /// announcement) goes out with the next join, coalesced by table: the server took the
    /// write without a poke of its own, and the other device would otherwise wait for its poll.
    @Test func anAnnouncementMadeWhileNotJoinedGoesOutWithTheNextJoin() async throws {
        defer { realtime.stop() }
        let b = try await joinedDevice("b")
        let serverSeq = try server.database.connect().request(asUser: user) { connection in
            try connection.execute("select set_config('request.headers', $1, true)", [#"{"x-sync-pokes":"client"}"#])
            return try connection.execute(
                "insert into public.activities (id, name, updated_ms, device_id) values (gen_random_uuid(), $1, 1, 'a') returning server_seq",
                ["Written as a's channel dropped"]
            ).scalar.flatMap { Int64($0) }
        }
        let a = try await pokes(sleeper: ManualSleeper())
        #expect(!a.announce(.poke(table: "activities", serverSeq: serverSeq), for: user))
        #expect(!a.announce(.poke(table: "activities", serverSeq: serverSeq.map { $0 - 1 }), for: user))
        #expect(try databasePokes() == 0)
        #expect(try !names(on: b.device).contains("Written as a's channel dropped"))

        let broadcasts = try await realtime.stats()["client_broadcasts"] ?? 0
        let token = try await realtime.token(for: user)
        var events = a.events(for: user) { [user] in Credentials(userID: user, accessToken: token) }.makeAsyncIterator()
        #expect(await events.next() == .connected)
        #expect(try await eventually { try names(on: b.device).contains("Written as a's channel dropped") })
        #expect(try await realtime.stats()["client_broadcasts"] == broadcasts + 1)
        await b.device.engine.stop()
    }

    @Test func aUserCannotJoinAnotherUsersTopic() async throws {
        defer { realtime.stop() }
        let mallory = UUID()
        let malloryToken = try await realtime.token(for: mallory)
        let sleeper = ManualSleeper()
        let refused = try await realtime.stats()["refused_joins"] ?? 0
        // Mallory's own token, on the topic of `user`: realtime.messages' policies refuse the join.
        let events = try await pokes(sleeper: sleeper).events(for: user) { [user] in
            Credentials(userID: user, accessToken: malloryToken)
        }
        let heard = Locked<[PokeEvent]>([])
        let listener = Task {
            for await event in events { heard.withLock { $0.append(event) } }
        }
        #expect(try await eventually { try await realtime.stats()["refused_joins"] == refused + 1 })
        // Refused, it waits to try again (the first backoff) and never heard it was connected.
        #expect(await sleeper.waitUntilSleeping(.seconds(1)))
        #expect(heard.value.isEmpty)
        #expect(try await realtime.stats()["channels"] == 0)
        listener.cancel()

        // The same user's own token on the same topic joins.
        let own = try await joinedDevice("own")
        #expect(try await realtime.stats()["channels"] == 1)
        await own.device.engine.stop()
    }
}
