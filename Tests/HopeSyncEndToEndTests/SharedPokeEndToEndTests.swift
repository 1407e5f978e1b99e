import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncPostgresCluster
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import Testing

/// Pokes to a shared list's members (decision 0048, "Amendment: pokes to members") through the
/// test Realtime server, which authorises each join by running realtime.messages' policies as
/// the user, over PostgreSQL with the project's generated SQL: member A's save in the list
/// reaches member B's device by a poke (B's own topic) and no poll, though A's device announces
/// its own pushes (the header spares A's topic only); A removing B pokes B, whose device drops
/// the list at once; and B's later polls see none of A's writes. No test waits for real time:
/// each device's poll and reconnection wait on sleepers only the test lets go.
@Suite struct SharedPokeEndToEndTests {
    let server: TestServer
    let realtime: RealtimeTestServer
    let ana = UUID()
    let ben = UUID()

    init() throws {
        server = try TestServer(realtime: true)
        realtime = try #require(server.realtime)
    }

    struct PokedDevice {
        let device: Device
        let polls: ManualSleeper
    }

    /// A started device of `user` hearing pokes (announcing its own pushes), once its channel is
    /// joined and the pass its join asked for is done.
    func joinedDevice(_ name: String, _ user: UUID) async throws -> PokedDevice {
        let polls = ManualSleeper()
        var configuration = SyncConfiguration()
        configuration.sleep = polls.sleep
        var pokes = RealtimePokes(projectURL: realtime.url, apiKey: try await realtime.anonKey())
        pokes.sleep = ManualSleeper().sleep
        pokes.jitter = { $0 }
        let device = try Device(
            name, user: user, transport: server.transport, configuration: configuration, pokes: pokes,
            accessToken: try await realtime.token(for: user))
        await device.engine.start()
        #expect(await polls.waitUntilSleeping(configuration.pollIntervalWithPokes))
        return PokedDevice(device: device, polls: polls)
    }

    func titles(on device: Device) throws -> Set<String> {
        Set(try device.store.read { try $0.fetchAll(TaskItem.self) }.map(\.title))
    }

    func lists(on device: Device) throws -> [String] {
        try device.store.read { try $0.fetchAll(TaskList.self) }.map(\.name)
    }

    /// The database's pokes so far on `user`'s topic.
    func databasePokes(to user: UUID) throws -> Int {
        Int(
            try server.database.connect().execute(
                "select count(*) from realtime.messages where event = 'poke' and topic = $1", ["sync:\(user.uuidString.lowercased())"]
            ).scalar ?? "") ?? -1
    }

    @Test func aMembersSaveReachesTheOtherMemberByAPokeAndARemovedMemberDropsTheListAtOnce() async throws {
        defer { realtime.stop() }
        let a = try await joinedDevice("ana", ana)
        let list = TaskList(name: "Groceries")
        try await a.device.store.write { writer in
            try writer.save(list)
            try writer.save(TaskItem(title: "Milk", listId: list.id))
        }
        try await a.device.sync()
        try await a.device.engine.share(list, with: ben, as: .editor)

        let b = try await joinedDevice("ben", ben)
        #expect(try titles(on: b.device) == ["Milk"])
        let anaBroadcasts = try await realtime.stats()["client_broadcasts"] ?? 0
        let anaPokes = try databasePokes(to: ana)
        let benPokes = try databasePokes(to: ben)

        // Ana's push is announced by her device on her topic; the database pokes Ben's topic,
        // not hers. No poll of Ben's runs: only the poke brings it.
        try await a.device.store.write { _ = try $0.save(TaskItem(title: "Eggs", listId: list.id)) }
        try await a.device.sync()
        #expect(try await eventually { try titles(on: b.device) == ["Milk", "Eggs"] })
        #expect(try databasePokes(to: ben) == benPokes + 1)
        #expect(try databasePokes(to: ana) == anaPokes)
        #expect(try await realtime.stats()["client_broadcasts"] ?? 0 >= anaBroadcasts + 1)

        // Ana removes Ben: the membership's poke reaches Ben, no longer a member, and his
        // device drops the list and its rows with no poll.
        try await a.device.engine.removeMember(ben, from: list)
        #expect(try await eventually { try lists(on: b.device).isEmpty && titles(on: b.device).isEmpty })
        #expect(try b.device.store.sharedScopes().isEmpty)

        // Ana's later writes poke nobody but Ana's own devices, and Ben's poll reads none.
        let benAfter = try databasePokes(to: ben)
        try await a.device.store.write { _ = try $0.save(TaskItem(title: "Bread", listId: list.id)) }
        try await a.device.sync()
        #expect(try databasePokes(to: ben) == benAfter)
        b.polls.elapse(.seconds(60))
        #expect(await b.polls.waitUntilSleeping(.seconds(60)))
        #expect(try titles(on: b.device).isEmpty)
        await a.device.engine.stop()
        await b.device.engine.stop()
    }

    /// Ben, once a member of Ana's list and removed, tries Ana's topic with his own token: the
    /// join is refused, so no poke of Ana's ever reaches him (he hears only his own topic, which
    /// the database pokes only for what he reads).
    @Test func aRemovedMemberCannotJoinAMembersTopic() async throws {
        defer { realtime.stop() }
        let list = UUID().uuidString.lowercased()
        let connection = try server.database.connect()
        try connection.request(asUser: ana) {
            try $0.execute(
                "insert into public.task_lists (id, user_id, name) values ($1, $2, 'list')", [list, ana.uuidString.lowercased()])
            try $0.execute(
                "insert into public.task_lists_members (scope_id, user_id, role) values ($1, $2, 'editor')",
                [list, ben.uuidString.lowercased()])
        }
        try connection.request(asUser: ana) {
            try $0.execute("update public.task_lists_members set deleted_ms = 1 where user_id = $1", [ben.uuidString.lowercased()])
        }
        let benToken = try await realtime.token(for: ben)
        let refused = try await realtime.stats()["refused_joins"] ?? 0
        let sleeper = ManualSleeper()
        var pokes = RealtimePokes(projectURL: realtime.url, apiKey: try await realtime.anonKey())
        pokes.sleep = sleeper.sleep
        pokes.jitter = { $0 }
        let events = pokes.events(for: ana) { [ana] in Credentials(userID: ana, accessToken: benToken) }
        let heard = Locked<[PokeEvent]>([])
        let listener = Task { for await event in events { heard.withLock { $0.append(event) } } }
        #expect(try await eventually { try await realtime.stats()["refused_joins"] == refused + 1 })
        #expect(await sleeper.waitUntilSleeping(.seconds(1)))
        #expect(heard.value.isEmpty)
        #expect(try await realtime.stats()["channels"] == 0)
        listener.cancel()
    }
}
