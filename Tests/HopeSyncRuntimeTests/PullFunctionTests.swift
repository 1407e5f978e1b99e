import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// Pulls through the server's pull function: one request a pass, the user's mark kept once a
/// pull applied everything, and the tables serving instead when the server lacks the function.
@Suite struct PullFunctionTests {
    let user = UUID()
    let server = InMemoryServer.hope()

    func device(_ name: String, clock: ManualClock = ManualClock(), server: InMemoryServer? = nil, schema: AppSchema = HopeFixture.app())
        throws -> TestDevice
    {
        try TestDevice(name, user: user, transport: server ?? self.server, schema: schema, clock: clock)
    }

    private func pulls(since index: Int) async -> [InMemoryRequest] {
        await Array(server.requestLog.dropFirst(index))
    }

    @Test func anIdlePassThroughThePullFunctionIsOneRequestAndReadsNothing() async throws {
        let a = try device("a")
        try await a.store.write { try $0.save(Activity(name: "Once")) }
        try await a.sync()
        try await a.sync()
        let before = await server.requestLog.count
        let report = try await a.sync()
        #expect(report.pulled == 0)
        let requests = await pulls(since: before)
        let mark = await server.mark(of: user)
        #expect(requests == [.pullTables(after: Dictionary(uniqueKeysWithValues: requests.first.map(Self.cursors) ?? []), since: mark)])
        #expect(await a.engine.status.serverProtocol == .functions)
    }

    @Test func aWriteOfTheUserMovesTheMarkSoTheNextPassPullsEveryTable() async throws {
        let (a, b) = (try device("a"), try device("b"))
        try await b.sync()
        let idle = await server.mark(of: user)
        try await a.store.write { try $0.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2)) }
        try await a.sync()
        #expect(await server.mark(of: user) != idle)
        let report = try await b.sync()
        #expect(report.pulled == 1)
        #expect(try await differences(b, server).isEmpty)
        // Another user's writes leave this user's mark where it was.
        let stranger = try TestDevice("c", user: UUID(), transport: server)
        let mark = await server.mark(of: user)
        try await stranger.store.write { try $0.save(Activity(name: "Theirs")) }
        try await stranger.sync()
        #expect(await server.mark(of: user) == mark)
    }

    /// A lookback table's write that commits after a later one: the pull that saw the later one
    /// kept a mark the late commit moves, so the next pass reads the window again and finds it.
    @Test func aWriteCommittedLateMovesTheMarkAndIsPulledFromTheWindow() async throws {
        let server = InMemoryServer.hope(sessionOrdering: .lookback(50))
        let schema = HopeFixture.app(sessionOrdering: .lookback(50))
        let (a, b, c) = (
            try device("a", server: server, schema: schema), try device("b", server: server, schema: schema),
            try device("c", server: server, schema: schema)
        )
        try await a.store.write { try $0.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2)) }
        await server.holdNextWrite()
        try await a.sync()
        try await b.store.write { try $0.save(Session(activityId: UUID(), startedMs: 3, endedMs: 4)) }
        try await b.sync()
        try await c.sync()
        #expect(try c.sessions().count == 1, "the held write is not visible yet")
        try await c.sync()
        await server.commitHeldWrites()
        let before = await server.requestLog.count
        try await c.sync()
        #expect(try c.sessions().count == 2)
        let requests = await server.requestLog.dropFirst(before)
        guard case .pullTables(let after, let since)? = requests.first else {
            Issue.record("no pull of every table: \(requests)")
            return
        }
        #expect(since != nil, "c kept the mark of its last pull")
        #expect(after["sessions"] == 0, "the window starts 50 behind a cursor under 50")
    }

    @Test func aServerWithoutTheFunctionsIsSyncedTableByTableAndTheStatusSaysSo() async throws {
        let now = Locked(Date())
        var configuration = TestDevice.configuration
        configuration.now = { now.value }
        let a = try device("a")
        let b = try TestDevice("b", user: user, transport: server, configuration: configuration)
        await server.setHasFunctions(false)
        try await a.store.write { try $0.save(Activity(name: "Through the tables")) }
        try await a.sync()
        try await b.sync()
        #expect(try await differences(b, server).isEmpty)
        #expect(try b.dirtyCount() == 0)
        #expect(await b.engine.status.serverProtocol == .tables)
        #expect(await b.engine.status.lastError == nil)
        // The newer SQL is pasted: the engine tries the functions again after a while.
        await server.setHasFunctions(true)
        try await b.sync()
        #expect(await b.engine.status.serverProtocol == .tables)
        now.value += 10 * 60 // the engine's retry interval
        try await b.sync()
        #expect(await b.engine.status.serverProtocol == .functions)
    }

    @Test func anAppWhoseTableListNamesNoFunctionSyncsTableByTable() async throws {
        let a = try device("a", schema: HopeFixture.app(functions: false))
        try await a.store.write { try $0.save(Activity(name: "Old list")) }
        try await a.sync()
        #expect(await server.requestLog.contains(.pull(table: "activities", after: 0)))
        #expect(await a.engine.status.serverProtocol == .tables)
    }

    private static func cursors(_ request: InMemoryRequest) -> [(String, Int64)] {
        if case .pullTables(let after, _) = request { return after.map { ($0.key, $0.value) } }
        return []
    }
}
