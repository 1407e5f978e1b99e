import Foundation
import HopeSchema
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@testable import HopeSync

/// `update(_:id:_:)`: one read, the edit, and a save of what it changed.
@Suite struct StoreUpdateTests {
    let user = UUID()

    func store(_ clock: ManualClock = ManualClock(), name: String = "update") throws -> SyncStore {
        try SyncStore(
            path: TestDevice.temporaryPath(name), schema: HopeFixture.app(), userID: user, deviceID: "device-a", wallClock: clock.read)
    }

    func stamps(of id: UUID, in table: String, _ store: SyncStore) throws -> ColumnStamps {
        let row = try #require(try store.read { try $0.rowValues(of: table) }.first { $0["id"] == .text(id.lowercasedString) })
        return try #require(row["column_stamps"]?.text.flatMap(ColumnStamps.init(json:)))
    }

    @Test func anUpdateStampsOnlyTheColumnsItChanges() throws {
        let clock = ManualClock()
        let store = try store(clock)
        let work = try store.write { try $0.save(Activity(name: "Work", color: "#000000")) }
        clock.advance(10)
        let updated = try #require(try store.write { try $0.update(Activity.self, id: work.id) { $0.name = "Deep work" } })
        #expect(updated.name == "Deep work" && updated.color == "#000000")
        #expect(updated.updatedMs == ManualClock.fixedStart + 10)
        let stamps = try stamps(of: work.id, in: "activities", store)
        #expect(stamps["name"]?.ms == ManualClock.fixedStart + 10)
        #expect(stamps["color"]?.ms == ManualClock.fixedStart)
        #expect(try store.read { try $0.fetchOne(Activity.self, id: work.id) } == updated)
    }

    @Test func anUpdateThatChangesNothingWritesNothing() async throws {
        let server = InMemoryServer.hope()
        let device = try TestDevice("a", user: user, transport: server)
        let work = try await device.store.write { try $0.save(Activity(name: "Work")) }
        let task = try await device.store.write { try $0.save(TaskItem(title: "Buy milk")) }
        try await device.sync()
        device.clock.advance(10)
        let (same, sameTask) = try await device.store.write { writer in
            let same = try writer.update(Activity.self, id: work.id) { $0.name = "Work" }
            return (same, try writer.update(TaskItem.self, id: task.id) { $0.title = "Buy milk" })
        }
        #expect(same?.updatedMs == work.updatedMs && sameTask?.title == "Buy milk")
        #expect(try device.dirtyCount() == 0)
        #expect(try device.store.pendingMutations().isEmpty)
    }

    @Test func anAbsentRowIsNilAndTheRestOfTheWriteCommits() throws {
        let store = try store()
        var edits = 0
        let (saved, missing) = try store.write { writer in
            let saved = try writer.save(Activity(name: "Work"))
            return (saved, try writer.update(Activity.self, id: UUID()) { _ in edits += 1 })
        }
        #expect(missing == nil && edits == 0)
        #expect(try store.read { try $0.fetchOne(Activity.self, id: saved.id) } == saved)
    }

    @Test func theEditRunsOnceOnTheRowAsStored() throws {
        let store = try store()
        let session = try store.write { try $0.save(Session(activityId: UUID(), startedMs: 100, note: "standup")) }
        var seen: [Session] = []
        try store.write { writer in
            try writer.update(Session.self, id: session.id) {
                seen.append($0)
                $0.endedMs = 200
            }
        }
        #expect(seen == [session])
        #expect(try store.read { try $0.fetchOne(Session.self, id: session.id) }?.endedMs == 200)
    }

    @Test func anEditIsStampedPastTheRowItEdits() throws {
        let clock = ManualClock()
        let store = try store(clock)
        let work = try store.write { try $0.save(Activity(name: "Work")) }
        clock.now = ManualClock.fixedStart - 60_000 // the device's clock went back a minute
        let updated = try #require(try store.write { try $0.update(Activity.self, id: work.id) { $0.color = "#FF0000" } })
        #expect(updated.updatedMs > work.updatedMs)
        #expect(try stamps(of: work.id, in: "activities", store)["color"].map { $0.ms > work.updatedMs } == true)
    }

    @Test func changingTheIDIsRefusedAndRollsTheWriteBack() throws {
        let store = try store()
        let work = try store.write { try $0.save(Activity(name: "Work")) }
        #expect(throws: SyncError.self) {
            try store.write { writer in
                try writer.save(Activity(name: "Other"))
                try writer.update(Activity.self, id: work.id) { $0.id = UUID() }
            }
        }
        #expect(try store.read { try $0.fetchCount(Activity.self) } == 1)
    }

    @Test func whatTheEditThrowsPassesAsItIs() throws {
        struct Refused: Error {}
        let store = try store()
        let work = try store.write { try $0.save(Activity(name: "Work")) }
        #expect(throws: Refused.self) {
            try store.write { try $0.update(Activity.self, id: work.id) { _ in throw Refused() } }
        }
    }

    @Test func aSyncedRowOfAVersionTableQueuesTheChangedColumns() async throws {
        let scene = ConflictScene()
        let device = try scene.device("a")
        let task = try await scene.syncedTask(on: device)
        try await device.store.write { try $0.update(TaskItem.self, id: task.id) { $0.done = true } }
        let pending = try device.pending()
        #expect(pending.count == 1 && pending.first?.body.columns == ["done"])
        #expect(try device.task(task.id)?.done == true)
    }

    /// Random edits, deletes included, of both column-merge tables: an update leaves every table
    /// as reading the row and saving it does, row for row, stamps and dirty states included.
    @Test func anUpdateGivesWhatReadingAndSavingGives() throws {
        var random = SeededGenerator(seed: 2_323)
        let (clockA, clockB) = (ManualClock(), ManualClock())
        let (updating, saving) = (try store(clockA, name: "updating"), try store(clockB, name: "saving"))
        let activities = (0..<4).map { _ in Activity(id: random.uuid(), name: "Work") }
        let sessions = (0..<4).map { Session(id: random.uuid(), activityId: activities[$0].id, startedMs: Int64($0) * 1_000) }
        for store in [updating, saving] {
            try store.write { writer in
                for row in activities { try writer.save(row) }
                for row in sessions { try writer.save(row) }
            }
        }
        for step in 0..<300 {
            let advance = Int64(random.below(3))
            for clock in [clockA, clockB] { clock.advance(advance) }
            let pick = random.below(8)
            let choice = random.below(5)
            func editActivity(_ row: inout Activity) {
                switch choice {
                case 0: row.name = ["Work", "Deep work", "Reading"][step % 3]
                case 1: row.archived.toggle()
                case 2: row.deletedMs = row.deletedMs == nil ? clockA.now : nil
                case 3: row.metadata = #"{"b": 1, "a": [2]}"#
                default: break // changes nothing
                }
            }
            func editSession(_ row: inout Session) {
                switch choice {
                case 0: row.endedMs = row.endedMs == nil ? row.startedMs + 500 : nil
                case 1: row.note = ["standup", nil, "review"][step % 3]
                case 2: row.source = .watch
                case 3: row.deletedMs = clockA.now
                default: break
                }
            }
            if pick < 4 {
                let id = activities[pick].id
                try updating.write { try $0.update(Activity.self, id: id, editActivity) }
                try saving.write { writer in
                    var row = try #require(try writer.fetchOne(Activity.self, id: id))
                    editActivity(&row)
                    try writer.save(row)
                }
            } else {
                let id = sessions[pick - 4].id
                try updating.write { try $0.update(Session.self, id: id, editSession) }
                try saving.write { writer in
                    var row = try #require(try writer.fetchOne(Session.self, id: id))
                    editSession(&row)
                    try writer.save(row)
                }
            }
            for table in ["activities", "sessions"] {
                #expect(try updating.read { try $0.rowValues(of: table) } == saving.read { try $0.rowValues(of: table) }, "step \(step)")
            }
            #expect(try updating.read { try $0.dirtyCount() } == saving.read { try $0.dirtyCount() })
        }
    }
}
