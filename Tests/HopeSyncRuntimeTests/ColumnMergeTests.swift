import Foundation
import HopeSchema
import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// Column merge on the in-memory server: concurrent edits of different columns both
/// survive; the same column goes to the larger pair, in either push order.
@Suite struct ColumnMergeTests {
    let user = UUID()
    let server = InMemoryServer.hope()

    func device(_ name: String, _ clock: ManualClock) throws -> TestDevice {
        try TestDevice(name, user: user, transport: server, clock: clock)
    }

    @Test func theStoppedTimerStaysStoppedWhenAnotherDeviceEditsTheNote() async throws {
        for watchFirst in [true, false] {
            let clock = ManualClock()
            let (watch, desk) = (try device("watch", clock), try device("desk", clock))
            let running = try await watch.store.write { try $0.save(Session(activityId: UUID(), startedMs: clock.now)) }
            try await watch.sync()
            try await desk.sync()
            for d in [watch, desk] { await d.engine.setNetworkEnabled(false) }
            clock.advance(1_000)
            var stopped = running
            stopped.endedMs = clock.now
            try await watch.store.write { [stopped] in try $0.save(stopped) }
            clock.advance(60_000) // the desk's edit is a minute later: the newer write of the row
            var noted = try #require(try await desk.store.read { try $0.fetchOne(Session.self, id: running.id) })
            noted.note = "standup"
            try await desk.store.write { [noted] in try $0.save(noted) }
            for d in [watch, desk] { await d.engine.setNetworkEnabled(true) }
            for d in watchFirst ? [watch, desk] : [desk, watch] { try await d.sync() }
            for d in [watch, desk] { try await d.sync() }
            for d in [watch, desk] {
                let row = try #require(try await d.store.read { try $0.fetchOne(Session.self, id: running.id) })
                #expect(row.endedMs == stopped.endedMs, "the stop survives (\(d.deviceID), watch first: \(watchFirst))")
                #expect(row.note == "standup", "the note survives (\(d.deviceID), watch first: \(watchFirst))")
                #expect(try await differences(d, server).isEmpty)
            }
        }
    }

    @Test func aRenameAndARecolourBothSurviveInEitherOrder() async throws {
        for renamerFirst in [true, false] {
            let clock = ManualClock()
            let (phone, tablet) = (try device("phone", clock), try device("tablet", clock))
            let work = try await phone.store.write { try $0.save(Activity(name: "Work", color: "#000000")) }
            try await phone.sync()
            try await tablet.sync()
            clock.advance(10)
            var renamed = work
            renamed.name = "Deep work"
            try await phone.store.write { [renamed] in try $0.save(renamed) }
            clock.advance(10)
            var recoloured = work
            recoloured.color = "#FF0000"
            try await tablet.store.write { [recoloured] in try $0.save(recoloured) }
            for d in renamerFirst ? [phone, tablet] : [tablet, phone] { try await d.sync() }
            for d in [phone, tablet] { try await d.sync() }
            for d in [phone, tablet] {
                let row = try #require(try await d.store.read { try $0.fetchOne(Activity.self, id: work.id) })
                #expect(row.name == "Deep work" && row.color == "#FF0000", "renamer first: \(renamerFirst)")
                #expect(try await differences(d, server).isEmpty)
            }
        }
    }

    @Test func theSameColumnGoesToTheLargerPairInEitherOrder() async throws {
        // Same millisecond: the bytewise larger device id wins; a later millisecond wins outright.
        for (gap, firstPusherIsA) in [(0, true), (0, false), (5, true), (5, false)] {
            let clock = ManualClock()
            let (a, b) = (try device("a", clock), try device("b", clock))
            let work = try await a.store.write { try $0.save(Activity(name: "Work")) }
            try await a.sync()
            try await b.sync()
            clock.advance(10)
            var fromA = work
            fromA.name = "from a"
            try await a.store.write { [fromA] in try $0.save(fromA) }
            clock.advance(Int64(gap))
            var fromB = work
            fromB.name = "from b"
            try await b.store.write { [fromB] in try $0.save(fromB) }
            for d in firstPusherIsA ? [a, b] : [b, a] { try await d.sync() }
            for d in [a, b] { try await d.sync() }
            for d in [a, b] {
                // b's pair is larger either way: the same millisecond with "b" > "a", or later.
                #expect(try await d.store.read { try $0.fetchOne(Activity.self, id: work.id) }?.name == "from b")
                #expect(try await differences(d, server).isEmpty)
            }
        }
    }

    @Test func aSaveThatChangesNothingWritesNothing() async throws {
        let a = try device("a", ManualClock())
        let work = try await a.store.write { try $0.save(Activity(name: "Work")) }
        try await a.sync()
        let again = try await a.store.write { try $0.save(work) }
        #expect(try a.dirtyCount() == 0)
        #expect(again.updatedMs == work.updatedMs)
    }

    @Test func aDeleteIsUndoneByANewerEditOfAnyColumnAndHoldsAgainstAnOlderOne() async throws {
        let clock = ManualClock()
        let (a, b) = (try device("a", clock), try device("b", clock))
        let work = try await a.store.write { try $0.save(Activity(name: "Work")) }
        try await a.sync()
        try await b.sync()
        clock.advance(10)
        var older = work
        older.color = "#111111"
        try await b.store.write { [older] in try $0.save(older) } // older than the delete
        clock.advance(10)
        try await a.store.write { try $0.delete(Activity.self, id: work.id) }
        try await a.sync()
        try await b.sync()
        try await a.sync()
        let afterOlder = try #require(try await a.store.read { try $0.fetchOne(Activity.self, id: work.id) })
        #expect(afterOlder.deletedMs != nil && afterOlder.color == "#111111")
        clock.advance(10)
        var newer = try #require(try await b.store.read { try $0.fetchOne(Activity.self, id: work.id) })
        newer.name = "Work again"
        newer.deletedMs = afterOlder.deletedMs // an edit of the name alone, newer than the delete
        try await b.store.write { [newer] in try $0.save(newer) }
        try await b.sync()
        try await a.sync()
        for d in [a, b] {
            let row = try #require(try await d.store.read { try $0.fetchOne(Activity.self, id: work.id) })
            #expect(row.deletedMs == nil && row.name == "Work again" && row.color == "#111111")
            #expect(try await differences(d, server).isEmpty)
        }
    }
}
