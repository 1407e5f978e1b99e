import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@Suite struct SyncTests {
    let user = UUID()
    let server = InMemoryServer.hope()

    func device(_ name: String, clock: ManualClock = ManualClock(), server: InMemoryServer? = nil, schema: AppSchema = HopeFixture.app())
        throws -> TestDevice
    {
        try TestDevice(name, user: user, transport: server ?? self.server, schema: schema, clock: clock)
    }

    @Test func twoDevicesConverge() async throws {
        let (a, b) = (try device("a"), try device("b"))
        let activity = try await a.store.write { try $0.save(Activity(name: "Work")) }
        try await b.store.write { try $0.save(Session(activityId: activity.id, startedMs: 1, endedMs: 2)) }
        let pushed = try await a.sync()
        #expect(pushed.pushed == 1)
        try await b.sync()
        try await a.sync()
        #expect(try await differences(a, server).isEmpty)
        #expect(try await differences(b, server).isEmpty)
        #expect(try a.sessions().count == 1)
        #expect(try await b.store.read { try $0.fetchAll(Activity.self) }.map(\.name) == ["Work"])
        #expect(try a.dirtyCount() == 0 && b.dirtyCount() == 0)
    }

    @Test func offlineEditsMergeEachRowToItsNewestWrite() async throws {
        let clock = ManualClock()
        let (a, b) = (try device("a", clock: clock), try device("b", clock: clock))
        let work = try await a.store.write { try $0.save(Activity(name: "Work")) }
        let play = try await a.store.write { try $0.save(Activity(name: "Play")) }
        try await a.sync()
        try await b.sync()
        await a.engine.setNetworkEnabled(false)
        await b.engine.setNetworkEnabled(false)
        var renamed = work
        renamed.name = "Work (a)"
        try await a.store.write { [renamed] in try $0.save(renamed) }
        clock.advance(5)
        var bWork = try #require(try await b.store.read { try $0.fetchOne(Activity.self, id: work.id) })
        bWork.name = "Work (b, later)"
        try await b.store.write { [bWork] in try $0.save(bWork) }
        clock.advance(5)
        var aPlay = play
        aPlay.color = "#FF0000"
        try await a.store.write { [aPlay] in try $0.save(aPlay) }
        await #expect { try await a.sync() } throws: { ($0 as? SyncError)?.code == .networkDisabled }
        await a.engine.setNetworkEnabled(true)
        await b.engine.setNetworkEnabled(true)
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for d in [a, b] {
            let names = try await d.store.read { try $0.fetchAll(Activity.self, orderBy: "name").map { "\($0.name) \($0.color)" } }
            #expect(names == ["Play #FF0000", "Work (b, later) #8E8E93"])
            #expect(try await differences(d, server).isEmpty)
        }
    }

    @Test(arguments: [(true, "a"), (false, "a"), (true, "z"), (false, "z")])
    func aDeleteRacesAnEditInTheSameMillisecond(deleteLandsFirst: Bool, deleterID: String) async throws {
        let clock = ManualClock()
        // Same millisecond: the larger device id wins ("e" beats "a" and loses to "z"), whichever
        // write reaches the server first.
        let (deleter, editor) = (try device(deleterID, clock: clock), try device("e", clock: clock))
        let activity = try await deleter.store.write { try $0.save(Activity(name: "Work")) }
        try await deleter.sync()
        try await editor.sync()
        clock.advance(100)
        let deleted = try await deleter.store.write { tx in
            try tx.delete(Activity.self, id: activity.id)
            return try tx.fetchOne(Activity.self, id: activity.id)
        }
        var edited = activity
        edited.name = "Edited"
        let saved = try await editor.store.write { [edited] in try $0.save(edited) }
        #expect(deleted?.updatedMs == saved.updatedMs)
        if deleteLandsFirst {
            try await deleter.sync()
            try await editor.sync()
        } else {
            try await editor.sync()
            try await deleter.sync()
        }
        try await deleter.sync()
        try await editor.sync()
        // Column by column: the edit of name always stands (nothing else wrote name); the delete
        // holds only when its pair beats the edit's.
        let deleteWins = deleterID > "e"
        for d in [deleter, editor] {
            let row = try #require(try await d.store.read { try $0.fetchOne(Activity.self, id: activity.id) })
            #expect((row.deletedMs != nil) == deleteWins)
            #expect(row.name == "Edited")
            #expect(try await differences(d, server).isEmpty)
        }
    }

    @Test func pushesGoInBatchesOfAtMost500() async throws {
        let sizes = BatchSizes()
        let transport = HookedTransport(base: server, beforeUpsert: {}, recordUpsert: { sizes.append($0) })
        let a = try TestDevice("a", user: user, transport: transport)
        try await a.store.write { tx in
            for index in 0..<1_200 { try tx.save(Activity(name: "row \(index)")) }
        }
        let report = try await a.sync()
        #expect(report.pushed == 1_200)
        #expect(sizes.values == [500, 500, 200])
        var configuration = SyncConfiguration()
        configuration.batchSize = 2_000
        #expect(configuration.batchSize == 500)
    }

    @Test func onlyOneSessionRunsAcrossDevices() async throws {
        let clock = ManualClock()
        let (watch, desktop) = (try device("watch", clock: clock), try device("desktop", clock: clock))
        let activity = UUID()
        // Both start a timer offline; the desktop's starts later.
        let early = try await watch.store.write { try $0.save(Session(activityId: activity, startedMs: 1_000, source: .watch)) }
        let late = try await desktop.store.write { try $0.save(Session(activityId: activity, startedMs: 2_000)) }
        try await desktop.sync()
        try await watch.sync()
        try await desktop.sync()
        try await watch.sync()
        for d in [watch, desktop] {
            let open = try await d.store.read { try $0.fetchAll(Session.self, where: "ended_ms IS NULL") }
            #expect(open.map(\.id) == [late.id])
            #expect(try await d.store.read { try $0.fetchOne(Session.self, id: early.id) }?.endedMs == 2_000)
            #expect(try await differences(d, server).isEmpty)
        }
        let serverOpen = await server.rows(of: "sessions").values.filter { $0["ended_ms"] == .null }
        #expect(serverOpen.count == 1)
    }

    @Test func aRepeatedPullChangesNothing() async throws {
        let server = InMemoryServer.hope(sessionOrdering: .lookback(50))
        let schema = HopeFixture.app(sessionOrdering: .lookback(50))
        let (a, b) = (try device("a", server: server, schema: schema), try device("b", server: server, schema: schema))
        try await a.store.write { tx in
            for start in 0..<20 { try tx.save(Session(activityId: UUID(), startedMs: Int64(start), endedMs: Int64(start) + 1)) }
        }
        try await a.sync()
        let first = try await b.sync()
        #expect(first.pulled == 20)
        let before = try localRows(b, HopeFixture.sessions())
        let again = try await b.sync()
        #expect(again.pulled == 0)
        #expect(try localRows(b, HopeFixture.sessions()) == before)
        #expect(try b.dirtyCount() == 0)
    }

    @Test func aNewerLocalDirtyRowStaysDirtyThroughAPullAndWinsLater() async throws {
        let clock = ManualClock()
        let box = StoreBox()
        var transport = HookedTransport(base: server, beforeUpsert: {})
        transport.beforePull = {
            // a edits the row after its push and before its pull: newer than b's, still dirty.
            guard let store = box.store, box.takeOnce() else { return }
            clock.advance(10)
            _ = try? store.write { tx in
                var row = try #require(try tx.fetchAll(Activity.self).first)
                row.name = "Newer, from a"
                try tx.save(row)
            }
        }
        let a = try TestDevice("a", user: user, transport: transport, clock: clock)
        let b = try device("b", clock: clock)
        let activity = try await a.store.write { try $0.save(Activity(name: "Start")) }
        try await a.sync()
        try await b.sync()
        var older = activity
        older.name = "Older, from b"
        try await b.store.write { [older] in try $0.save(older) }
        try await b.sync()
        box.store = a.store
        let report = try await a.sync() // pushes nothing; the edit lands; the pull brings b's older write
        #expect(report.pushed == 0 && report.pulled == 0)
        #expect(try await a.store.read { try $0.fetchOne(Activity.self, id: activity.id) }?.name == "Newer, from a")
        #expect(try a.dirtyCount() == 1)
        try await a.sync()
        try await b.sync()
        #expect(try await b.store.read { try $0.fetchOne(Activity.self, id: activity.id) }?.name == "Newer, from a")
        #expect(try await differences(a, server).isEmpty)
    }

    @Test func observationsSeePulledRows() async throws {
        let (a, b) = (try device("a"), try device("b"))
        var names = b.store.observe { try $0.fetchAll(Activity.self, orderBy: "name").map(\.name) }.makeAsyncIterator()
        #expect(try await names.next() == [])
        try await a.store.write { try $0.save(Activity(name: "Remote")) }
        try await a.sync()
        try await b.sync()
        #expect(try await names.next() == ["Remote"])
    }

    @Test(arguments: [true, false])
    func pullsPageThroughManyRows(functions: Bool) async throws {
        var configuration = TestDevice.configuration
        configuration.pageSize = 7
        let a = try device("a")
        let b = try TestDevice(
            "b", user: user, transport: server, schema: HopeFixture.app(functions: functions), configuration: configuration)
        try await a.store.write { tx in
            for start in 0..<100 { try tx.save(Session(activityId: UUID(), startedMs: Int64(start), endedMs: Int64(start) + 1)) }
        }
        try await a.sync()
        let requestsBefore = await server.requestCount
        let report = try await b.sync()
        #expect(report.pulled == 100)
        // 100 sessions in pages of 7 (15 pages, the last short), plus one empty page per other
        // table when each table is its own request.
        #expect(await server.requestCount - requestsBefore == (functions ? 15 : 15 + HopeFixture.app().tables.count - 1))
        #expect(try await differences(b, server).isEmpty)
    }

    /// Table by table, an idle pass reads the lookback window again; through the pull function
    /// it reads nothing (see ``anIdlePassThroughThePullFunctionIsOneRequestAndReadsNothing()``).
    @Test func lookbackTablesStartBehindTheCursorAndExactTablesAtIt() async throws {
        let server = InMemoryServer.hope(sessionOrdering: .lookback(50))
        let sizes = PulledSizes()
        let transport = RecordingPulls(base: server, sizes: sizes)
        let writer = try device("writer", server: server, schema: HopeFixture.app(sessionOrdering: .lookback(50)))
        try await writer.store.write { tx in
            for start in 0..<80 { try tx.save(Session(activityId: UUID(), startedMs: Int64(start), endedMs: Int64(start) + 1)) }
            for index in 0..<80 { try tx.save(Activity(name: "a\(index)")) }
        }
        try await writer.sync()
        var configuration = TestDevice.configuration
        for (lookback, expected) in [(nil, 50), (Int64(10), 10)] as [(Int64?, Int)] {
            configuration.lookback = lookback
            let reader = try TestDevice(
                "reader", user: user, transport: transport, schema: HopeFixture.app(sessionOrdering: .lookback(50), functions: false),
                configuration: configuration)
            try await reader.sync()
            sizes.clear()
            try await reader.sync() // idle: only the lookback window comes back
            #expect(sizes.rows["sessions"] == expected)
            #expect(sizes.rows["activities"] == 0)
        }
    }

    @Test func pageSizeIsClampedToTheServerCap() {
        var configuration = SyncConfiguration()
        configuration.pageSize = 5_000
        #expect(configuration.pageSize == 1_000)
        configuration.batchSize = 0
        #expect(configuration.batchSize == 1)
    }

    @Test(arguments: [PullOrdering.lookback(50), .exact])
    func theOutOfOrderCommitWindowIsCaught(ordering: PullOrdering) async throws {
        let server = InMemoryServer.hope(sessionOrdering: ordering)
        let schema = HopeFixture.app(sessionOrdering: ordering)
        let (slow, fast, reader) = (
            try device("slow", server: server, schema: schema), try device("fast", server: server, schema: schema),
            try device("reader", server: server, schema: schema)
        )
        let held = try await slow.store.write { try $0.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2)) }
        await server.holdNextWrite()
        try await slow.sync() // takes a sequence number, commits later
        try await fast.store.write { tx in
            for start in 10..<30 { try tx.save(Session(activityId: UUID(), startedMs: Int64(start), endedMs: Int64(start) + 1)) }
        }
        try await fast.sync()
        try await reader.sync() // pulls between the two commits
        #expect(try await reader.store.read { try $0.fetchOne(Session.self, id: held.id) } == nil)
        await server.commitHeldWrites()
        try await reader.sync()
        #expect(try await reader.store.read { try $0.fetchOne(Session.self, id: held.id) } != nil)
        #expect(try await differences(reader, server).isEmpty)
    }

    @Test func withoutLookbackOrExactOrderingTheWindowLosesARow() async throws {
        // The control: a pull that starts at the cursor on a table that commits out of order
        // misses the late row for ever. (Shows the two tests above are not vacuous.)
        let server = InMemoryServer.hope(sessionOrdering: .lookback(50))
        let schema = HopeFixture.app(sessionOrdering: .lookback(0))
        let (slow, fast, reader) = (
            try device("slow", server: server, schema: schema), try device("fast", server: server, schema: schema),
            try device("reader", server: server, schema: schema)
        )
        let held = try await slow.store.write { try $0.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2)) }
        await server.holdNextWrite()
        try await slow.sync()
        try await fast.store.write { try $0.save(Session(activityId: UUID(), startedMs: 5, endedMs: 6)) }
        try await fast.sync()
        try await reader.sync()
        await server.commitHeldWrites()
        try await reader.sync()
        #expect(try await reader.store.read { try $0.fetchOne(Session.self, id: held.id) } == nil)
    }

    @Test func aSlowClockStillWinsWithItsNewerEditAfterSeeingTheOther() async throws {
        let fastClock = ManualClock(1_800_000_000_000)
        let slowClock = ManualClock(1_800_000_000_000 - 3_600_000)
        let (fast, slow) = (try device("fast", clock: fastClock), try device("slow", clock: slowClock))
        let activity = try await fast.store.write { try $0.save(Activity(name: "From fast")) }
        try await fast.sync()
        try await slow.sync()
        var edit = try #require(try await slow.store.read { try $0.fetchOne(Activity.self, id: activity.id) })
        edit.name = "Newer, from slow"
        let saved = try await slow.store.write { [edit] in try $0.save(edit) }
        #expect(saved.updatedMs > activity.updatedMs)
        try await slow.sync()
        try await fast.sync()
        #expect(try await fast.store.read { try $0.fetchOne(Activity.self, id: activity.id) }?.name == "Newer, from slow")
        #expect(try await differences(fast, server).isEmpty)
    }

    @Test func aWriteMadeWhileItsPushIsInFlightStaysDirty() async throws {
        let clock = ManualClock()
        let box = StoreBox()
        let transport = HookedTransport(
            base: server,
            beforeUpsert: {
                guard let store = box.store, box.takeOnce() else { return }
                clock.advance(1)
                try? await store.write { tx in
                    var activity = try #require(try tx.fetchAll(Activity.self).first)
                    activity.name = "Edited during push"
                    try tx.save(activity)
                }
            })
        let a = try TestDevice("a", user: user, transport: transport, clock: clock)
        box.store = a.store
        try await a.store.write { try $0.save(Activity(name: "Original")) }
        try await a.sync()
        #expect(try a.dirtyCount() == 1)
        #expect(await server.rows(of: "activities").values.first?["name"] == .text("Original"))
        try await a.sync()
        #expect(try a.dirtyCount() == 0)
        #expect(await server.rows(of: "activities").values.first?["name"] == .text("Edited during push"))
    }
}
