import Foundation
import HopeSchema
import SyncRuntime
import Testing

@Suite struct SyncTests {
    let user = UUID()
    let server = InMemoryServer.hope()

    func device(_ name: String, clock: TestClock = TestClock(), server: InMemoryServer? = nil, schema: AppSchema = HopeFixture.app()) throws -> TestDevice {
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
        let clock = TestClock()
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
        try await a.sync(); try await b.sync(); try await a.sync()
        for d in [a, b] {
            let names = try await d.store.read { try $0.fetchAll(Activity.self, orderBy: "name").map { "\($0.name) \($0.color)" } }
            #expect(names == ["Play #FF0000", "Work (b, later) #8E8E93"])
            #expect(try await differences(d, server).isEmpty)
        }
    }

    @Test(arguments: [(true, "a"), (false, "a"), (true, "z"), (false, "z")])
    func aDeleteRacesAnEditInTheSameMillisecond(deleteLandsFirst: Bool, deleterID: String) async throws {
        let clock = TestClock()
        // Same millisecond: the larger device id wins ("e" beats "a" and loses to "z"), whichever
        // write reaches the server first.
        let (deleter, editor) = (try device(deleterID, clock: clock), try device("e", clock: clock))
        let activity = try await deleter.store.write { try $0.save(Activity(name: "Work")) }
        try await deleter.sync(); try await editor.sync()
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
            try await deleter.sync(); try await editor.sync()
        } else {
            try await editor.sync(); try await deleter.sync()
        }
        try await deleter.sync(); try await editor.sync()
        let deleteWins = deleterID > "e"
        for d in [deleter, editor] {
            let row = try #require(try await d.store.read { try $0.fetchOne(Activity.self, id: activity.id) })
            #expect((row.deletedMs != nil) == deleteWins)
            #expect(row.name == (deleteWins ? "Work" : "Edited"))
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
        let clock = TestClock()
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

    @Test func pullsPageThroughManyRows() async throws {
        var configuration = TestDevice.configuration
        configuration.pageSize = 7
        let a = try device("a")
        let b = try TestDevice("b", user: user, transport: server, configuration: configuration)
        try await a.store.write { tx in
            for start in 0..<100 { try tx.save(Session(activityId: UUID(), startedMs: Int64(start), endedMs: Int64(start) + 1)) }
        }
        try await a.sync()
        let requestsBefore = await server.requestCount
        let report = try await b.sync()
        #expect(report.pulled == 100)
        // 100 sessions in pages of 7 (15 pages, the last short) plus one empty page per other table.
        #expect(await server.requestCount - requestsBefore == 15 + 3)
        #expect(try await differences(b, server).isEmpty)
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
        let fastClock = TestClock(1_800_000_000_000)
        let slowClock = TestClock(1_800_000_000_000 - 3_600_000)
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
        let clock = TestClock()
        let box = StoreBox()
        let transport = HookedTransport(base: server, beforeUpsert: {
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

    @Test func aBatchWithOneBadRowLandsTheOthersAndRejectsOne() async throws {
        let refusal = ServerError(status: 400, code: "23514", message: "new row violates check constraint \"no_secret\"", details: "Failing row contains (...)", hint: "Remove the word")
        await server.refuseRows(in: "activities", with: refusal) { $0["name"] == .text("secret") }
        let a = try device("a")
        try await a.store.write { tx in
            for index in 0..<9 { try tx.save(Activity(name: "ok \(index)")) }
            try tx.save(Activity(name: "secret"))
        }
        let report = try await a.sync()
        #expect(report.pushed == 9 && report.rejected == 1)
        #expect(await server.rows(of: "activities").count == 9)
        let rejected = try await a.store.read { try $0.rejectedWrites() }
        #expect(rejected.count == 1 && rejected.first?.error == refusal && rejected.first?.table == "activities")
        #expect(await a.engine.status.rejectedCount == 1)
        // Not retried: the next sync sends nothing.
        let requests = await server.requestCount
        let again = try await a.sync()
        #expect(again.pushed == 0 && again.rejected == 0)
        #expect(await server.requestCount - requests == 4) // one pull per table
        #expect(try a.dirtyCount() == 0)
    }

    @Test func anotherUsersRowIsRejectedWithoutBlockingTheRest() async throws {
        let owner = try device("owner")
        let stolen = try await owner.store.write { try $0.save(Activity(name: "Owner's")) }
        try await owner.sync()
        let thief = try TestDevice("thief", user: UUID(), transport: server)
        try await thief.store.write { tx in
            try tx.save(Activity(name: "Mine"))
            try tx.save(Activity(id: stolen.id, name: "Taken over"))
        }
        let report = try await thief.sync()
        #expect(report.pushed == 1 && report.rejected == 1)
        let rejected = try await thief.store.read { try $0.rejectedWrites() }
        #expect(rejected.first?.error.code == "42501" && rejected.first?.error.status == 403 && rejected.first?.rowID == stolen.id)
        #expect(await server.rows(of: "activities")[stolen.id.uuidString.lowercased()]?["name"] == .text("Owner's"))
    }

    @Test func serverErrorsAndNetworkFailuresKeepEverythingQueued() async throws {
        let a = try device("a")
        try await a.store.write { try $0.save(Activity(name: "Queued")) }
        await server.failNextRequests(1, with: SyncError(.server, "unavailable", serverError: ServerError(status: 503, code: "PGRST000", message: "down")))
        await #expect(throws: SyncError.self) { try await a.sync() }
        #expect(try a.dirtyCount() == 1)
        #expect(await a.engine.status.lastError?.httpStatus == 503)
        await server.setOnline(false)
        await #expect(throws: SyncError.self) { try await a.sync() }
        #expect(await a.engine.status.phase == .offline)
        #expect(try a.dirtyCount() == 1)
        await server.setOnline(true)
        try await a.sync()
        #expect(try a.dirtyCount() == 0)
        let status = await a.engine.status
        #expect(status.lastError == nil && status.phase == .idle && status.hasSynced)
    }

    @Test func aLostAnswerIsResentHarmlessly() async throws {
        let a = try device("a")
        try await a.store.write { try $0.save(Activity(name: "Sent twice")) }
        await server.loseNextAnswers(1)
        await #expect(throws: SyncError.self) { try await a.sync() }
        #expect(try a.dirtyCount() == 1)
        try await a.sync()
        try await a.sync()
        #expect(try a.dirtyCount() == 0)
        #expect(try await differences(a, server).isEmpty)
    }

    @Test func pgrst204BecomesSchemaDriftNamingTheColumn() async throws {
        let a = try device("a")
        await server.dropColumn("note", from: "sessions")
        try await a.store.write { try $0.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2, note: "hi")) }
        await #expect {
            try await a.sync()
        } throws: { error in
            (error as? SyncError)?.code == .schemaDrift && (error as? SyncError)?.message.contains("column note") == true
        }
        let status = await a.engine.status
        guard case .schemaDrift(let drift) = status.phase else {
            Issue.record("phase is \(status.phase)")
            return
        }
        #expect(drift.table == "sessions" && drift.column == "note")
        #expect(drift.description.contains("migration"))
        #expect(try a.dirtyCount() == 1) // nothing rejected: the server is at fault
        await server.restoreColumn("note", to: "sessions")
        try await a.sync()
        #expect(try a.dirtyCount() == 0)
        #expect(try await a.store.read { try $0.rejectedWrites() }.isEmpty)
    }

    @Test func closingTheDatabaseMidSyncLosesNoAcknowledgedWrite() async throws {
        let box = StoreBox()
        let transport = HookedTransport(base: server, beforeUpsert: {}, afterUpsert: {
            // The app is killed after the server took the rows, before the device noted it.
            if box.takeOnce() { box.store?.close() }
        })
        let clock = TestClock()
        let a = try TestDevice("a", user: user, transport: transport, clock: clock)
        box.store = a.store
        let written = try await a.store.write { tx in
            try (0..<5).map { try tx.save(Activity(name: "row \($0)")) }
        }
        await #expect(throws: SyncError.self) { try await a.sync() }
        let reopened = try a.restarted()
        #expect(try reopened.dirtyCount() == 5)
        try await reopened.sync()
        try await reopened.sync()
        #expect(try reopened.dirtyCount() == 0)
        let onServer = await server.rows(of: "activities")
        #expect(Set(onServer.keys) == Set(written.map { $0.id.uuidString.lowercased() }))
        #expect(try await differences(reopened, server).isEmpty)
    }

    @Test func anUndecodableRowIsReportedAndDoesNotStopTheOthers() async throws {
        let (a, b) = (try device("a"), try device("b"))
        try await a.store.write { try $0.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2)) }
        try await a.sync()
        let broken = UUID()
        await server.insertUndecodableRow(in: "sessions", owner: user, id: broken)
        try await a.store.write { try $0.save(Session(activityId: UUID(), startedMs: 3, endedMs: 4)) }
        try await a.sync()
        let report = try await b.sync()
        #expect(report.undecodable.map(\.key) == [broken.uuidString.lowercased()])
        #expect(report.undecodable.first?.table == "sessions")
        #expect(try b.sessions().count == 2)
        // Reported once: the cursor moved past it with the rows around it.
        #expect(try await b.sync().undecodable.isEmpty)
    }

    @Test func aRowTheLocalDatabaseRefusesIsReportedNotApplied() async throws {
        // A newer server schema has an enum case this build lacks; its row fails the local CHECK.
        let sessions = HopeFixture.sessions()
        let newerSessions = TableSchema(
            name: "sessions",
            columns: sessions.columns.map { $0.name == "source" ? ColumnSchema("source", .enumeration(["desktop", "phone", "watch", "tablet"])) : $0 },
            conflict: .lastWriterWins, ordering: .exact, openRowRule: sessions.openRowRule
        )
        let newer = InMemoryServer(tables: [HopeFixture.activities, newerSessions, HopeFixture.tasks, HopeFixture.taskLists])
        let writer = try TestDevice("writer", user: user, transport: newer)
        let reader = try TestDevice("reader", user: user, transport: newer)
        try await writer.store.write { tx in
            try tx.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2))
            try tx.save(Session(activityId: UUID(), startedMs: 3, endedMs: 4, source: .watch))
        }
        try await writer.sync()
        let tablet = UUID()
        let names = sessions.columnNames.filter { $0 != "server_seq" }
        let values: [SyncValue] = [
            .text(tablet.uuidString.lowercased()), .text(user.uuidString.lowercased()), .text(UUID().uuidString.lowercased()),
            .int(2), .int(3), .null, .text("tablet"), .int(5), .null, .text("tablet-device"),
        ]
        try await newer.upsert([ColumnValues(columns: names, values: values)], into: newerSessions, as: Credentials(userID: user, accessToken: ""))
        let report = try await reader.sync()
        #expect(report.pulled == 2)
        #expect(report.undecodable.map(\.key) == [tablet.uuidString.lowercased()])
        #expect(report.undecodable.first?.reason.contains("CHECK") == true)
        #expect(try reader.sessions().count == 2)
    }
}

/// Sizes of the upserts a transport saw.
final class BatchSizes: @unchecked Sendable {
    private let lock = NSLock()
    private var sizes: [Int] = []

    func append(_ size: Int) { lock.withLock { sizes.append(size) } }
    var values: [Int] { lock.withLock { sizes } }
}

/// A late-bound reference for hooks that act on a device built after them.
final class StoreBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: SyncStore?
    private var used = false

    var store: SyncStore? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// True the first time only.
    func takeOnce() -> Bool {
        lock.withLock {
            defer { used = true }
            return !used
        }
    }
}
