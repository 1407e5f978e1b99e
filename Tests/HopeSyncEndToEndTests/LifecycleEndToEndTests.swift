import Foundation
@_spi(Transport) import HopeSync
import HopeSyncLifecycleSchemaV1
import HopeSyncLifecycleSchemaV2
import HopeSyncLifecycleSchemaV3
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

private typealias HabitV1 = HopeSyncLifecycleSchemaV1.Habit
private typealias NoteV1 = HopeSyncLifecycleSchemaV1.Note
private typealias HabitV2 = HopeSyncLifecycleSchemaV2.Habit
private typealias NoteV2 = HopeSyncLifecycleSchemaV2.Note
private typealias HabitV3 = HopeSyncLifecycleSchemaV3.Habit
private typealias TagV1 = HopeSyncLifecycleSchemaV1.Tag
private typealias NoteV3 = HopeSyncLifecycleSchemaV3.Note

/// The column lifecycle on PostgreSQL (decision 0052), with the builds of
/// Tests/Fixtures/Lifecycle: v1; v2, which renames habits.name and notes.heading to title and
/// deprecates habits.streak; v3, which finishes both and removes streak (oldest_writer 2).
/// Builds of two steps sync at once through the libpq transport against the server migrated
/// to the later step, as `supabase db push` runs the migrations.
@Suite struct LifecycleEndToEndTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/Lifecycle")

    /// Each build pulling table by table (nil) or through the pull function.
    static func v1(_ pull: String?) -> AppSchema {
        AppSchema(
            tables: HopeSyncLifecycleSchemaV1.GeneratedSchema.tables, migrations: HopeSyncLifecycleSchemaV1.GeneratedSchema.migrations,
            pullFunction: pull)
    }
    static func v2(_ pull: String?) -> AppSchema {
        AppSchema(
            tables: HopeSyncLifecycleSchemaV2.GeneratedSchema.tables, migrations: HopeSyncLifecycleSchemaV2.GeneratedSchema.migrations,
            pullFunction: pull)
    }
    static func v3(_ pull: String?) -> AppSchema {
        AppSchema(
            tables: HopeSyncLifecycleSchemaV3.GeneratedSchema.tables, migrations: HopeSyncLifecycleSchemaV3.GeneratedSchema.migrations,
            pullFunction: pull)
    }
    static let pulls: [String?] = [nil, HopeSyncLifecycleSchemaV1.GeneratedSchema.app.pullFunction]

    let user = UUID()

    /// A database with the migrations of `step`'s Generated/ numbered `from` on applied.
    static func migrate(_ connection: Connection, to step: String, from first: Int = 1) throws {
        let folder = fixtures.appendingPathComponent("\(step)/Generated/supabase/migrations")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let number = Int(file.split(separator: "_")[1]) ?? 0
            guard number >= first else { continue }
            try connection.execute(script: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
    }

    final class Build {
        let store: SyncStore
        let engine: SyncEngine
        let path: String

        init(
            _ name: String, _ schema: AppSchema, _ transport: PostgresTransport, user: UUID, path: String? = nil,
            wallClock: @escaping @Sendable () -> Int64 = SyncStore.systemClock
        ) throws {
            self.path =
                path ?? FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(name)-\(UUID().uuidString).sqlite").path
            store = try SyncStore(path: self.path, schema: schema, userID: user, deviceID: name, wallClock: wallClock)
            engine = SyncEngine(store: store, transport: transport, configuration: Device.configuration) {
                Credentials(user)
            }
        }

        /// The app updated: the same file opened with `schema`.
        func reopened(as name: String, _ schema: AppSchema, _ transport: PostgresTransport, user: UUID) async throws -> Build {
            await engine.stop()
            store.close()
            return try Build(name, schema, transport, user: user, path: path)
        }

        func remove() {
            store.close()
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    @Test(arguments: pulls)
    func anOldBuildAndANewOneShareEveryValueEachInItsShapeAndTheUpgradeSendsTheOldQueue(_ pull: String?) async throws {
        let database = try PostgresCluster.createDatabase()
        try Self.migrate(try database.connect(), to: "v2")
        let transport = PostgresTransport(url: database.url)
        let old = try Build("old", Self.v1(pull), transport, user: user)
        let new = try Build("new", Self.v2(pull), transport, user: user)
        defer { new.remove() }

        // Each build writes in its own shape; each reads the other's in its own.
        let run = try await old.store.write { try $0.save(HabitV1(name: "Run", color: "#111111", streak: 5, goal: 10)) }
        let note = try await old.store.write { try $0.save(NoteV1(heading: "Groceries", body: "milk")) }
        let read = try await new.store.write { try $0.save(HabitV2(title: "Read", color: "#222222")) }
        let list = try await new.store.write { try $0.save(NoteV2(title: "Packing", body: nil)) }
        for device in [old, new, old] { try await device.engine.syncNow() }
        let runSeenByNew = try #require(try await new.store.read { try $0.fetchOne(HabitV2.self, id: run.id) })
        #expect(runSeenByNew.title == "Run" && runSeenByNew.goalText == "10", "the retyped column converted by 'to'")
        #expect(try await new.store.read { try $0.fetchOne(NoteV2.self, id: note.id) }?.title == "Groceries")
        let readSeenByOld = try #require(try await old.store.read { try $0.fetchOne(HabitV1.self, id: read.id) })
        #expect(readSeenByOld.name == "Read" && readSeenByOld.streak == 0, "the deprecated column's server default")
        #expect(try await old.store.read { try $0.fetchOne(NoteV1.self, id: list.id) }?.heading == "Packing")

        // Concurrent edits merge by the usual rules: column by column in habits (the old build's
        // rename and the new build's recolour both survive; of two writes of the renamed column,
        // the later wins whichever name it came through), by version in notes.
        try await old.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV1.self, id: run.id))
            edited.name = "Morning run"
            edited.streak = 6
            try tx.save(edited)
        }
        try await new.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV2.self, id: run.id))
            edited.color = "#00FF00"
            try tx.save(edited)
            var retitled = try #require(try tx.fetchOne(HabitV2.self, id: read.id))
            retitled.title = "Read more"
            retitled.goalText = "12"
            try tx.save(retitled)
        }
        // Past the other device's clock: the two writes of the renamed column are ordered.
        try await Task.sleep(for: .milliseconds(50))
        try await old.store.write { tx in
            var later = try #require(try tx.fetchOne(HabitV1.self, id: read.id))
            later.name = "Read every day"
            try tx.save(later)
        }
        try await old.store.write { tx in
            var edited = try #require(try tx.fetchOne(NoteV1.self, id: list.id))
            edited.heading = "Packing list"
            try tx.save(edited)
        }
        for device in [new, old, new, old] { try await device.engine.syncNow() }
        let runSeen = try #require(try await new.store.read { try $0.fetchOne(HabitV2.self, id: run.id) })
        #expect(runSeen.title == "Morning run" && runSeen.color == "#00FF00")
        let runSeenByOld = try #require(try await old.store.read { try $0.fetchOne(HabitV1.self, id: run.id) })
        #expect(runSeenByOld.name == "Morning run" && runSeenByOld.color == "#00FF00" && runSeenByOld.streak == 6)
        #expect(try await new.store.read { try $0.fetchOne(HabitV2.self, id: read.id) }?.title == "Read every day")
        let readSeen = try #require(try await old.store.read { try $0.fetchOne(HabitV1.self, id: read.id) })
        #expect(readSeen.name == "Read every day" && readSeen.goal == 12, "the retyped column converted back by 'back'")
        #expect(try await new.store.read { try $0.fetchOne(NoteV2.self, id: list.id) }?.title == "Packing list")

        // The old build's edits not sent yet, then the update: they go out through the new names.
        try await old.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV1.self, id: run.id))
            edited.name = "Evening run"
            try tx.save(edited)
            var guarded = try #require(try tx.fetchOne(NoteV1.self, id: note.id))
            guarded.heading = "Groceries for Sunday"
            try tx.save(guarded)
            // A deprecated table's unsent row goes with the table: the update drops it.
            try tx.save(TagV1(label: "never sent"))
        }
        let upgraded = try await old.reopened(as: "old", Self.v2(pull), transport, user: user)
        defer { upgraded.remove() }
        let pass = try await upgraded.engine.syncNow()
        #expect(pass.pushed >= 1)
        #expect(try await upgraded.store.read { try $0.fetchOne(HabitV2.self, id: run.id) }?.title == "Evening run")
        try await new.engine.syncNow()
        let final = try #require(try await new.store.read { try $0.fetchOne(HabitV2.self, id: run.id) })
        #expect(final.title == "Evening run" && final.color == "#00FF00")
        #expect(try await new.store.read { try $0.fetchOne(NoteV2.self, id: note.id) }?.title == "Groceries for Sunday")
        #expect(try await upgraded.store.read { try $0.fetchOne(NoteV2.self, id: note.id) }?.title == "Groceries for Sunday")
        #expect(try upgraded.store.pendingMutations().isEmpty)
    }

    @Test(arguments: pulls)
    func afterTheContractStepNewBuildsSyncAndTheOldestBuildStillPulls(_ pull: String?) async throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try Self.migrate(connection, to: "v2")
        let transport = PostgresTransport(url: database.url)
        let oldest = try Build("oldest", Self.v1(pull), transport, user: user)
        let middle = try Build("middle", Self.v2(pull), transport, user: user)
        defer { for build in [oldest, middle] { build.remove() } }
        let run = try await oldest.store.write { try $0.save(HabitV1(name: "Run", color: "#111111", streak: 5)) }
        let tag = try await oldest.store.write { try $0.save(TagV1(label: "outdoors")) }
        for device in [oldest, middle] { try await device.engine.syncNow() }

        try Self.migrate(connection, to: "v3", from: 3)
        let newest = try Build("newest", Self.v3(pull), transport, user: user)
        defer { newest.remove() }
        let walk = try await newest.store.write { try $0.save(HabitV3(title: "Walk", color: "#333333", goalText: "7")) }
        try await middle.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV2.self, id: run.id))
            edited.title = "Long run"
            try tx.save(edited)
        }
        for device in [newest, middle, newest] { try await device.engine.syncNow() }
        #expect(try await newest.store.read { try $0.fetchOne(HabitV3.self, id: run.id) }?.title == "Long run")
        #expect(try await middle.store.read { try $0.fetchOne(HabitV2.self, id: walk.id) }?.title == "Walk")

        // The oldest build may no longer write, but its pulls go on: the old names are served
        // read only (streak as its default now).
        try await Self.passBelowTheFloor(oldest)
        let seen = try #require(try await oldest.store.read { try $0.fetchOne(HabitV1.self, id: walk.id) })
        #expect(seen.name == "Walk" && seen.streak == 0 && seen.goal == 7)
        #expect(try await oldest.store.read { try $0.fetchOne(HabitV1.self, id: run.id) }?.name == "Long run")
        // The deprecated table stays on the server: a build that has it still reads it.
        let another = try Build("another-oldest", Self.v1(pull), transport, user: user)
        defer { another.remove() }
        try await Self.passBelowTheFloor(another)
        #expect(try await another.store.read { try $0.fetchOne(TagV1.self, id: tag.id) }?.label == "outdoors")
        try await newest.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV3.self, id: walk.id))
            edited.title = "Evening walk"
            try tx.save(edited)
        }
        try await newest.engine.syncNow()
        try await Self.passBelowTheFloor(oldest)
        #expect(try await oldest.store.read { try $0.fetchOne(HabitV1.self, id: walk.id) }?.name == "Evening walk", "its cursor moves on")

        // The oldest build's edits not sent, then its update straight to v3: they land through
        // the new names (the renames happened in the v2 migration it applies on the way).
        let note = try await oldest.store.write { try $0.save(NoteV1(heading: "Trip", body: nil)) }
        try await Self.passBelowTheFloor(oldest)
        // Its write met the floor (decision 0051): kept, not rejected, and the app is told.
        #expect(await oldest.engine.status.phase == .updateRequired)
        #expect(try oldest.store.rejectedMutations().isEmpty)
        try await oldest.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV1.self, id: walk.id))
            edited.name = "Night walk"
            edited.goal = 9
            try tx.save(edited)
            var guarded = try #require(try tx.fetchOne(NoteV1.self, id: note.id))
            guarded.heading = "Trip to the sea"
            try tx.save(guarded)
        }
        let updated = try await oldest.reopened(as: "oldest", Self.v3(pull), transport, user: user)
        defer { updated.remove() }
        try await updated.engine.syncNow()
        try await newest.engine.syncNow()
        let landed = try #require(try await newest.store.read { try $0.fetchOne(HabitV3.self, id: walk.id) })
        #expect(landed.title == "Night walk" && landed.goalText == "9")
        #expect(try await newest.store.read { try $0.fetchOne(NoteV3.self, id: note.id) }?.title == "Trip to the sea")
        #expect(try updated.store.pendingMutations().isEmpty)
    }

    /// A pass of a build below `oldest_writer`: it pulls, and it ends refused (`.updateRequired`)
    /// once the server told it so, by its hello or by a write's PT426 (decision 0051).
    static func passBelowTheFloor(_ build: Build) async throws {
        do {
            try await build.engine.syncNow()
        } catch let error where error.code == .updateRequired {
            // Its pulls ran; its writes wait for the update.
        }
    }
}
