import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// The schedule with a poke source: a poke pulls the table it names at once (not one the device
/// has pulled past already), pokes that come during a pass make one more pull, every
/// connection and disconnection pulls everything, the idle poll is a minute while connected and
/// five seconds otherwise, and a backoff is waited out whatever pokes say.
@Suite struct PokeScheduleTests {
    let user = UUID()
    let server = InMemoryServer.hope()
    let sleeper = ManualSleeper()
    let pokes = FakePokes(connectAtOnce: false)
    let pulls = PullCounts()

    func device(_ name: String = "a", gate: PullGate? = nil) throws -> TestDevice {
        var configuration = SyncConfiguration()
        configuration.sleep = sleeper.sleep
        let transport = CountingPulls(base: server, counts: pulls, gate: gate)
        return try TestDevice(name, user: user, transport: transport, configuration: configuration, pokes: pokes)
    }

    /// Another device of the user writes an activity and pushes it; its server_seq.
    func writeElsewhere(_ name: String) async throws -> Int64 {
        let other = try TestDevice("b", user: user, transport: server)
        let row = try await other.store.write { try $0.save(Activity(name: name)) }
        try await other.sync()
        return try #require(await server.rows(of: "activities")[row.id.uuidString.lowercased()]?["server_seq"]?.int)
    }

    func has(_ device: TestDevice, _ name: String) throws -> Bool {
        try device.store.read { try $0.fetchAll(Activity.self) }.contains { $0.name == name }
    }

    @Test func whileConnectedTheIdlePollIsAMinuteAndFiveSecondsOtherwise() async throws {
        let a = try device()
        await a.engine.start()
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        let tables = GeneratedSchema.tables.count
        #expect(pulls.total == tables)
        // Each connection and disconnection pulls everything at once: pokes may have passed unheard.
        pokes.send(.connected, to: user)
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        #expect(await eventually { pulls.total == 2 * tables })
        pokes.send(.disconnected, to: user)
        #expect(await eventually { pulls.total == 3 * tables })
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        await a.engine.stop()
        #expect(pokes.listeners(of: user) == 0)
    }

    @Test func aPokePullsAtOnceTheTableItNamesAlone() async throws {
        let a = try device()
        await a.engine.start()
        pokes.send(.connected, to: user)
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        #expect(await eventually { pulls.total == 2 * GeneratedSchema.tables.count })
        let before = pulls.counts
        let seq = try await writeElsewhere("From b")
        pokes.send(.poke(table: "activities", serverSeq: seq), to: user)
        #expect(try await eventually { try has(a, "From b") })
        #expect(await eventually { pulls.counts["activities"] == (before["activities"] ?? 0) + 1 })
        #expect(pulls.counts.filter { $0.key != "activities" } == before.filter { $0.key != "activities" })
        // No timer was elapsed: the poke alone pulled, and the engine goes back to the minute's poll.
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        await a.engine.stop()
    }

    @Test func aPokeOfWhatTheDeviceHasPulledAlreadyIsNotPulled() async throws {
        let seq = try await writeElsewhere("Before")
        let a = try device()
        await a.engine.start()
        pokes.send(.connected, to: user)
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        #expect(await eventually { pulls.total == 2 * GeneratedSchema.tables.count })
        let before = pulls.counts
        pokes.send(.poke(table: "activities", serverSeq: seq), to: user)
        let later = try await writeElsewhere("After")
        pokes.send(.poke(table: "sessions", serverSeq: later), to: user)
        pokes.send(.poke(table: "activities", serverSeq: later), to: user)
        #expect(try await eventually { try has(a, "After") })
        #expect(await eventually { pulls.counts["activities"] == (before["activities"] ?? 0) + 1 })
        // One pass may pull both tables, activities first: wait for sessions too.
        #expect(await eventually { pulls.counts["sessions"] == (before["sessions"] ?? 0) + 1 })
        // A table this build does not know is nothing to pull.
        pokes.send(.poke(table: "not_a_table", serverSeq: later + 1), to: user)
        #expect(pulls.counts["activities"] == (before["activities"] ?? 0) + 1)
        await a.engine.stop()
    }

    @Test func aPokeOfALookbackTableIsPulledWhateverTheCursor() async throws {
        // Without exact ordering a write can commit below the device's cursor, after the pull
        // that moved it there: only the lookback window of a pull finds it.
        let schema = HopeFixture.app(sessionOrdering: .lookback(50))
        let lookbackServer = InMemoryServer(tables: schema.tables)
        var configuration = SyncConfiguration()
        configuration.sleep = sleeper.sleep
        let other = try TestDevice("b", user: user, transport: lookbackServer, schema: schema)
        let activity = try await other.store.write { try $0.save(Activity(name: "Work")) }
        try await other.store.write { _ = try $0.save(Session(activityId: activity.id, startedMs: 1_000, endedMs: 2_000)) }
        try await other.sync()
        let a = try TestDevice(
            "a", user: user, transport: CountingPulls(base: lookbackServer, counts: pulls), schema: schema, configuration: configuration,
            pokes: pokes)
        await a.engine.start()
        pokes.send(.connected, to: user)
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        #expect(await eventually { pulls.total == 2 * schema.tables.count })
        let before = pulls.counts
        pokes.send(.poke(table: "sessions", serverSeq: 1), to: user)
        #expect(await eventually { pulls.counts["sessions"] == (before["sessions"] ?? 0) + 1 })
        // The same poke of an exactly ordered table the device has pulled past is not pulled.
        let waits = sleeper.startedCount(.seconds(60))
        pokes.send(.poke(table: "activities", serverSeq: 1), to: user)
        // Woken by the poke, the engine finds nothing to pull and waits again.
        #expect(await eventually { sleeper.startedCount(.seconds(60)) == waits + 1 })
        #expect(pulls.counts["activities"] == before["activities"])
        await a.engine.stop()
    }

    @Test func pokesDuringAPassMakeOneMorePull() async throws {
        let gate = PullGate()
        let a = try device(gate: gate)
        await a.engine.start()
        pokes.send(.connected, to: user)
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        #expect(await eventually { pulls.total == 2 * GeneratedSchema.tables.count })
        let before = pulls.counts["sessions"] ?? 0
        gate.close()
        pokes.send(.poke(table: "sessions", serverSeq: nil), to: user)
        #expect(await eventually { gate.waiting == 1 })
        for _ in 0..<10 { pokes.send(.poke(table: "sessions", serverSeq: nil), to: user) }
        gate.open()
        #expect(await eventually { pulls.counts["sessions"] == before + 2 })
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        #expect(pulls.counts["sessions"] == before + 2)
        await a.engine.stop()
    }

    @Test func aBackoffIsWaitedOutWhateverPokesSay() async throws {
        let a = try device()
        await server.failNextRequests(1, with: ScheduleTests.unavailable)
        await a.engine.start()
        #expect(await sleeper.waitUntilSleeping(.seconds(1)))
        let requests = await server.requestCount
        pokes.send(.connected, to: user)
        pokes.send(.poke(table: "activities", serverSeq: nil), to: user)
        try await Task.sleep(for: .milliseconds(50))
        #expect(await server.requestCount == requests)
        sleeper.elapse(.seconds(1))
        #expect(await eventually { await server.requestCount > requests })
        #expect(await sleeper.waitUntilSleeping(.seconds(60)))
        await a.engine.stop()
    }

    @Test func withoutAPokeSourceItPollsAsBefore() async throws {
        var configuration = SyncConfiguration()
        configuration.sleep = sleeper.sleep
        let a = try TestDevice("plain", user: user, transport: server, configuration: configuration)
        await a.engine.start()
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        sleeper.elapse(.seconds(5))
        #expect(await sleeper.waitUntilSleeping(.seconds(5)))
        #expect(sleeper.startedCount(.seconds(60)) == 0)
        await a.engine.stop()
    }
}

/// Pull requests by table.
final class PullCounts: Sendable {
    private let byTable = Locked<[String: Int]>([:])

    func add(_ table: String) { byTable.withLock { $0[table, default: 0] += 1 } }
    var counts: [String: Int] { byTable.value }
    var total: Int { byTable.value.values.reduce(0, +) }
}

/// Holds pulls while closed, so a test can act during a pass.
final class PullGate: Sendable {
    private struct State {
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func close() { state.withLock { $0.closed = true } }

    func open() {
        let waiters = state.withLock { state in
            state.closed = false
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var waiting: Int { state.withLock { $0.waiters.count } }

    func pass() async {
        await withCheckedContinuation { continuation in
            let go = state.withLock { state in
                guard state.closed else { return true }
                state.waiters.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }
}

/// Counts the pulls it passes on, each after the gate lets it.
struct CountingPulls: ForwardingTransport {
    let base: InMemoryServer
    let counts: PullCounts
    var gate: PullGate?

    var forwardee: any SyncTransport { base }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        counts.add(table.name)
        await gate?.pass()
        return try await base.pull(table, after: cursor, limit: limit, as: user)
    }

    /// The pull function's one request counts as a pull of each table it reads: the own stream's
    /// and, asked with scopes, every table a scope holds (a scope it does not name is read whole).
    func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        let shared = cursors.scopes == nil ? [] : cursors.sharedTables.map(\.name)
        for name in Set(cursors.own.map(\.table.name) + shared) { counts.add(name) }
        await gate?.pass()
        return try await base.pull(cursors, since: mark, limit: limit, function: function, as: user)
    }
}
