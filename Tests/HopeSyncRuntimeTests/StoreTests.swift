import Foundation
import HopeSchema
import HopeSyncSQLite
import HopeSyncTestSupport
import Testing

@testable import HopeSync

@Suite struct StoreTests {
    let user = UUID()

    func openStore(
        path: String = TestDevice.temporaryPath("store"), clock: ManualClock = ManualClock(), schema: AppSchema = HopeFixture.app()
    ) throws -> SyncStore {
        try SyncStore(path: path, schema: schema, userID: user, deviceID: "device-a", wallClock: clock.read)
    }

    @Test func migrationsAreAppliedOnceAndRecorded() throws {
        let path = TestDevice.temporaryPath("migrate")
        try openStore(path: path).close()
        try openStore(path: path).close()
        let queue = try DatabaseQueue(path: path)
        let recorded = try queue.read { db in
            try db.fetchAll("SELECT domain, version, name FROM _sync_schema_migrations ORDER BY domain, version") {
                "\($0.text(at: 0)!) \($0.int64(at: 1)) \($0.text(at: 2)!)"
            }
        }
        let app = HopeFixture.app().migrations.map { "app \($0.version) \($0.name)" }
        #expect(
            recorded == app + [
                "runtime 1 bookkeeping", "runtime 2 guarded_writes", "runtime 3 row_refresh", "runtime 4 files", "runtime 5 scopes",
                "runtime 6 changed_by", "runtime 7 unanswered_sends",
            ])
        let journal = try queue.read { db in try db.fetchOne("PRAGMA journal_mode") { $0.text(at: 0) } }
        #expect(journal == "wal")
    }

    @Test func laterMigrationsApplyInOrder() throws {
        let path = TestDevice.temporaryPath("later")
        try openStore(path: path).close()
        let base = HopeFixture.app()
        let shipped = base.migrations.count
        let next = LocalMigration(version: shipped + 1, name: "add_tags", sql: "ALTER TABLE activities ADD COLUMN tags TEXT")
        let third = LocalMigration(version: shipped + 2, name: "index_tags", sql: "CREATE INDEX activities_tags_idx ON activities (tags)")
        let schema = AppSchema(tables: base.tables, migrations: base.migrations + [third, next])
        try openStore(path: path, schema: schema).close()
        let versions = try DatabaseQueue(path: path).read { db in
            try db.fetchAll("SELECT version FROM _sync_schema_migrations WHERE domain = 'app' ORDER BY rowid") { $0.int64(at: 0) }
        }
        #expect(versions == (1...shipped + 2).map(Int64.init))
    }

    @Test func aDatabaseFromANewerSchemaIsRefusedAndLeftUnchanged() throws {
        let path = TestDevice.temporaryPath("newer")
        let base = HopeFixture.app()
        let future = base.migrations.count + 1
        let newer = AppSchema(
            tables: base.tables,
            migrations: base.migrations + [
                LocalMigration(version: future, name: "future", sql: "CREATE TABLE future (id TEXT)")
            ])
        try openStore(path: path, schema: newer).close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try openStore(path: path, schema: base)
        } throws: { error in
            let error = error as? SyncError
            return error?.code == .configuration && error?.message.contains("newer app schema (version \(future))") == true
        }
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(before == after)
    }

    @Test func valuesAreStoredInTheSharedForms() throws {
        let store = try openStore()
        let id = UUID()
        let icon = Data([0, 1, 2, 255])
        try store.write { tx in
            try tx.save(Activity(id: id, name: "Focus", archived: true, sortOrder: 2.5, metadata: #"{"a":1}"#))
            try tx.save(TaskList(name: "Inbox", position: 1, icon: icon))
        }
        let raw = try store.read { try $0.rowValues(of: "activities") }
        #expect(raw.first?["id"] == .text(id.uuidString.lowercased()))
        #expect(raw.first?["user_id"] == .text(user.uuidString.lowercased()))
        #expect(raw.first?["archived"] == .bool(true))
        let stored = try DatabaseQueue(path: store.path).read { db in
            try db.fetchOne("SELECT archived, typeof(archived), id FROM activities") { ($0.int64(at: 0), $0.text(at: 1), $0.text(at: 2)) }
        }
        #expect(stored?.0 == 1 && stored?.1 == "integer" && stored?.2 == id.uuidString.lowercased())
        let list = try store.read { try $0.fetchAll(TaskList.self) }
        #expect(list.first?.icon == icon)
        let activity = try #require(try store.read { try $0.fetchOne(Activity.self, id: id) })
        #expect(activity.name == "Focus" && activity.archived && activity.sortOrder == 2.5 && activity.metadata == #"{"a":1}"#)
        #expect(activity.userId == user && activity.deviceId == "device-a")
    }

    @Test func writesAreStampedAndDirty() throws {
        let clock = ManualClock(1_000)
        let store = try openStore(clock: clock)
        let first = try store.write { try $0.save(Activity(name: "A")) }
        #expect(first.updatedMs == 1_000)
        clock.now = 500 // the wall clock jumps back
        var renamed = first
        renamed.name = "B"
        let second = try store.write { try $0.save(renamed) }
        #expect(second.updatedMs == 1_001)
        #expect(try store.read { try $0.dirtyCount() } == 1)
    }

    @Test func theClockSurvivesAReopen() throws {
        let path = TestDevice.temporaryPath("clock")
        let clock = ManualClock(5_000)
        let store = try openStore(path: path, clock: clock)
        try store.write { try $0.save(Activity(name: "A")) }
        store.close()
        clock.now = 10
        let reopened = try openStore(path: path, clock: clock)
        let next = try reopened.write { try $0.save(Activity(name: "B")) }
        #expect(next.updatedMs == 5_001)
        #expect(reopened.deviceID == "device-a")
    }

    @Test func softDeleteIsAStampedWrite() throws {
        let clock = ManualClock(1_000)
        let store = try openStore(clock: clock)
        let activity = try store.write { try $0.save(Activity(name: "A")) }
        clock.advance(10)
        #expect(try store.write { try $0.delete(Activity.self, id: activity.id) })
        #expect(try store.read { try $0.fetchAll(Activity.self) }.isEmpty)
        let deleted = try #require(try store.read { try $0.fetchOne(Activity.self, id: activity.id) })
        #expect(deleted.deletedMs == 1_010 && deleted.updatedMs == 1_010)
        #expect(try store.write { try $0.delete(Activity.self, id: UUID()) } == false)
    }

    @Test func fetchFiltersAndOrders() throws {
        let store = try openStore()
        try store.write { tx in
            for (name, order) in [("c", 3.0), ("a", 1.0), ("b", 2.0), ("x", 0.5)] {
                try tx.save(Activity(name: name, archived: name == "x", sortOrder: order))
            }
        }
        let names = try store.read {
            try $0.fetchAll(Activity.self, where: "archived = ?", [.bool(false)], orderBy: "sort_order DESC").map(\.name)
        }
        #expect(names == ["c", "b", "a"])
        #expect(try store.read { try $0.fetchCount(Activity.self, where: "sort_order > ?", [.double(1.5)]) } == 2)
    }

    @Test func observationStartsAtOnceEmitsOnChangeAndEnds() async throws {
        let store = try openStore()
        let stream = store.observe { try $0.fetchAll(Activity.self, orderBy: "name").map(\.name) }
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == [])
        try await store.write { try $0.save(Activity(name: "A")) }
        #expect(try await iterator.next() == ["A"])
        try await store.write { try $0.save(Activity(name: "B")) }
        #expect(try await iterator.next() == ["A", "B"])
        store.close()
        #expect(try await iterator.next() == nil)
    }

    @Test func observationStopsWhenIterationEnds() async throws {
        let store = try openStore()
        // The write waits for the first value: written before it, the first value would already
        // count the row and no second one would come.
        let (observing, started) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            var seen = 0
            for try await _ in store.observe({ try $0.fetchCount(Activity.self) }) {
                seen += 1
                if seen == 1 { started.yield() }
                if seen == 2 { break }
            }
            return seen
        }
        for await _ in observing { break }
        try await store.write { try $0.save(Activity(name: "A")) }
        #expect(try await task.value == 2)
        // Nothing is left observing: later writes run no query for it.
        try await store.write { try $0.save(Activity(name: "B")) }
    }

    @Test func aNewOpenSessionClosesTheEarlierOne() throws {
        let clock = ManualClock(10_000)
        let store = try openStore(clock: clock)
        let activity = UUID()
        let first = try store.write { try $0.save(Session(activityId: activity, startedMs: 100)) }
        let second = try store.write { try $0.save(Session(activityId: activity, startedMs: 200)) }
        let firstNow = try #require(try store.read { try $0.fetchOne(Session.self, id: first.id) })
        #expect(firstNow.endedMs == 200)
        #expect(firstNow.updatedMs > second.updatedMs)
        #expect(try store.read { try $0.fetchOne(Session.self, id: second.id) }?.endedMs == nil)
    }

    @Test func aLateOlderOpenSessionIsClosedAtTheNewerStart() throws {
        let store = try openStore()
        let activity = UUID()
        let newer = try store.write { try $0.save(Session(activityId: activity, startedMs: 200)) }
        let older = try store.write { try $0.save(Session(activityId: activity, startedMs: 100)) }
        #expect(try store.read { try $0.fetchOne(Session.self, id: older.id) }?.endedMs == 200)
        #expect(try store.read { try $0.fetchOne(Session.self, id: newer.id) }?.endedMs == nil)
    }

    @Test func sameStartKeepsTheLargerIdOpen() throws {
        let store = try openStore()
        let small = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
        let large = UUID(uuidString: "ffffffff-0000-4000-8000-000000000001")!
        try store.write { try $0.save(Session(id: large, activityId: UUID(), startedMs: 100)) }
        try store.write { try $0.save(Session(id: small, activityId: UUID(), startedMs: 100)) }
        let open = try store.read { try $0.fetchAll(Session.self, where: "ended_ms IS NULL") }
        #expect(open.map(\.id) == [large])
    }
}
