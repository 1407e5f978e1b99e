import Foundation
@_spi(Transport) import HopeSync
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresCluster
import HopeSyncPostgresFixture
import HopeSyncTableRenameSchemaV1
import HopeSyncTableRenameSchemaV2
import HopeSyncTableRenameSchemaV3
import Testing

private typealias HabitV1 = HopeSyncTableRenameSchemaV1.Habit
private typealias NoteV1 = HopeSyncTableRenameSchemaV1.Note
private typealias RoutineV2 = HopeSyncTableRenameSchemaV2.Routine
private typealias MemoV2 = HopeSyncTableRenameSchemaV2.Memo
private typealias RoutineV3 = HopeSyncTableRenameSchemaV3.Routine
private typealias MemoV3 = HopeSyncTableRenameSchemaV3.Memo
private typealias Build = LifecycleEndToEndTests.Build

/// A table rename on PostgreSQL (decision 0054), with the builds of Tests/Fixtures/TableRename:
/// v1 (habits, a column-merge table; notes, a version table); v2, which renames them routines
/// and memos; v3, which finishes both (oldest_writer 2). Builds of two steps sync at once
/// through the libpq transport against the server migrated to the later step.
@Suite struct TableRenameEndToEndTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/TableRename")

    /// Each build pulling table by table (nil) or through the pull function.
    static func v1(_ pull: String?) -> AppSchema {
        AppSchema(
            tables: HopeSyncTableRenameSchemaV1.GeneratedSchema.tables,
            migrations: HopeSyncTableRenameSchemaV1.GeneratedSchema.migrations, pullFunction: pull)
    }
    static func v2(_ pull: String?) -> AppSchema {
        AppSchema(
            tables: HopeSyncTableRenameSchemaV2.GeneratedSchema.tables,
            migrations: HopeSyncTableRenameSchemaV2.GeneratedSchema.migrations, pullFunction: pull)
    }
    static func v3(_ pull: String?) -> AppSchema {
        AppSchema(
            tables: HopeSyncTableRenameSchemaV3.GeneratedSchema.tables,
            migrations: HopeSyncTableRenameSchemaV3.GeneratedSchema.migrations, pullFunction: pull)
    }
    static let pulls: [String?] = [nil, HopeSyncTableRenameSchemaV1.GeneratedSchema.app.pullFunction]

    let user = UUID()

    /// A database with the migrations of `step`'s Generated/ numbered `from` on applied.
    static func migrate(_ connection: Connection, to step: String, from first: Int = 1) throws {
        let folder = fixtures.appendingPathComponent("\(step)/Generated/supabase/migrations")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            guard Int(file.split(separator: "_")[1]) ?? 0 >= first else { continue }
            try connection.execute(script: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
    }

    @Test(arguments: pulls)
    func anOldBuildAndANewOneShareEveryRowAndTheUpdateSendsTheOldQueueThroughTheNewNames(_ pull: String?) async throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try connection.execute(script: SupabasePrelude.realtime)
        try Self.migrate(connection, to: "v2")
        let transport = PostgresTransport(url: database.url)
        let old = try Build("old", Self.v1(pull), transport, user: user)
        let new = try Build("new", Self.v2(pull), transport, user: user)
        defer { new.remove() }

        // Each build writes through its own name; each reads the other's.
        let run = try await old.store.write { try $0.save(HabitV1(name: "Run", color: "#111111", goal: 10)) }
        let trip = try await old.store.write { try $0.save(NoteV1(heading: "Trip", body: "tent")) }
        let read = try await new.store.write { try $0.save(RoutineV2(name: "Read", color: "#222222")) }
        let shop = try await new.store.write { try $0.save(MemoV2(heading: "Shopping", body: nil)) }
        for device in [old, new, old] { try await device.engine.syncNow() }
        #expect(try await new.store.read { try $0.fetchOne(RoutineV2.self, id: run.id) }?.goal == 10)
        #expect(try await new.store.read { try $0.fetchOne(MemoV2.self, id: trip.id) }?.body == "tent")
        #expect(try await old.store.read { try $0.fetchOne(HabitV1.self, id: read.id) }?.name == "Read")
        #expect(try await old.store.read { try $0.fetchOne(NoteV1.self, id: shop.id) }?.heading == "Shopping")
        // The new build's writes are poked under both names: the old build hears of them too.
        for table in ["routines", "habits", "memos", "notes"] {
            let pokes = try connection.execute(
                "select count(*) from realtime.messages where event = 'poke' and topic = 'sync:\(user.uuidString.lowercased())' and payload ->> 'table' = '\(table)'"
            ).scalar
            #expect(Int(pokes ?? "") ?? 0 > 0, "\(table)")
        }

        // Concurrent edits merge by the usual rules, whichever name they came through: column by
        // column in routines, by version in memos (a guarded edit of each build, one after the
        // other, each against the version the other's left).
        try await old.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV1.self, id: run.id))
            edited.name = "Morning run"
            try tx.save(edited)
        }
        try await new.store.write { tx in
            var edited = try #require(try tx.fetchOne(RoutineV2.self, id: run.id))
            edited.color = "#00FF00"
            try tx.save(edited)
        }
        try await old.store.write { tx in
            var edited = try #require(try tx.fetchOne(NoteV1.self, id: shop.id))
            edited.body = "milk"
            try tx.save(edited)
        }
        for device in [new, old, new, old] { try await device.engine.syncNow() }
        try await new.store.write { tx in
            var edited = try #require(try tx.fetchOne(MemoV2.self, id: shop.id))
            edited.heading = "Shopping list"
            try tx.save(edited)
        }
        for device in [new, old] { try await device.engine.syncNow() }
        for build in [old, new] {
            #expect(try build.store.conflictedMutations().isEmpty && build.store.rejectedMutations().isEmpty)
        }
        let runSeenByNew = try #require(try await new.store.read { try $0.fetchOne(RoutineV2.self, id: run.id) })
        #expect(runSeenByNew.name == "Morning run" && runSeenByNew.color == "#00FF00")
        let runSeenByOld = try #require(try await old.store.read { try $0.fetchOne(HabitV1.self, id: run.id) })
        #expect(runSeenByOld.name == "Morning run" && runSeenByOld.color == "#00FF00")
        let shopSeenByOld = try #require(try await old.store.read { try $0.fetchOne(NoteV1.self, id: shop.id) })
        #expect(shopSeenByOld.heading == "Shopping list" && shopSeenByOld.body == "milk" && shopSeenByOld.version == 3)

        // The old build's writes not sent yet (an edit, a new row, a queued guarded write), then
        // the update: they go out through the new names, and the tables are not pulled again.
        let walk = try await old.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV1.self, id: run.id))
            edited.name = "Evening run"
            try tx.save(edited)
            var guarded = try #require(try tx.fetchOne(NoteV1.self, id: trip.id))
            guarded.heading = "Trip to the sea"
            try tx.save(guarded)
            return try tx.save(HabitV1(name: "Walk", color: "#333333"))
        }
        #expect(try old.store.pendingMutations().count == 1)
        let upgraded = try await old.reopened(as: "old", Self.v2(pull), transport, user: user)
        defer { upgraded.remove() }
        #expect(try upgraded.store.pendingMutations().map(\.table) == ["memos"])
        let pass = try await upgraded.engine.syncNow()
        #expect(pass.pushed >= 2)
        #expect(pass.pulled <= 3, "only the rows its own writes moved, not every row from zero")
        #expect(try upgraded.store.pendingMutations().isEmpty && upgraded.store.rejectedMutations().isEmpty)
        try await new.engine.syncNow()
        #expect(try await new.store.read { try $0.fetchOne(RoutineV2.self, id: run.id) }?.name == "Evening run")
        #expect(try await new.store.read { try $0.fetchOne(RoutineV2.self, id: walk.id) }?.name == "Walk")
        let tripSeen = try #require(try await new.store.read { try $0.fetchOne(MemoV2.self, id: trip.id) })
        #expect(tripSeen.heading == "Trip to the sea" && tripSeen.body == "tent")
        #expect(try await upgraded.store.read { try $0.fetchOne(RoutineV2.self, id: read.id) }?.name == "Read")
    }

    @Test(arguments: pulls)
    func afterTheContractStepNewBuildsSyncAndTheOldestBuildStillPulls(_ pull: String?) async throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try Self.migrate(connection, to: "v2")
        let transport = PostgresTransport(url: database.url)
        let oldest = try Build("oldest", Self.v1(pull), transport, user: user)
        let middle = try Build("middle", Self.v2(pull), transport, user: user)
        defer { middle.remove() }
        let run = try await oldest.store.write { try $0.save(HabitV1(name: "Run", color: "#111111")) }
        for device in [oldest, middle] { try await device.engine.syncNow() }

        try Self.migrate(connection, to: "v3", from: 3)
        // Finished: no more pokes under the old names (the old builds may no longer write).
        #expect(try connection.execute("select count(*) from pg_trigger where tgname like '%poke_old%'").scalar == "0")
        let newest = try Build("newest", Self.v3(pull), transport, user: user)
        defer { newest.remove() }
        let walk = try await newest.store.write { try $0.save(RoutineV3(name: "Walk", color: "#333333", goal: 7)) }
        try await middle.store.write { tx in
            var edited = try #require(try tx.fetchOne(RoutineV2.self, id: run.id))
            edited.name = "Long run"
            try tx.save(edited)
        }
        for device in [newest, middle, newest] { try await device.engine.syncNow() }
        #expect(try await newest.store.read { try $0.fetchOne(RoutineV3.self, id: run.id) }?.name == "Long run")
        #expect(try await middle.store.read { try $0.fetchOne(RoutineV2.self, id: walk.id) }?.goal == 7)

        // The oldest build may no longer write, but it still pulls through the old names.
        try await LifecycleEndToEndTests.passBelowTheFloor(oldest)
        #expect(try await oldest.store.read { try $0.fetchOne(HabitV1.self, id: walk.id) }?.name == "Walk")
        #expect(try await oldest.store.read { try $0.fetchOne(HabitV1.self, id: run.id) }?.name == "Long run")

        // Its writes meet the floor (decision 0051): kept, not rejected, and the app is told.
        let note = try await oldest.store.write { try $0.save(NoteV1(heading: "Trip", body: nil)) }
        try await oldest.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV1.self, id: walk.id))
            edited.name = "Night walk"
            try tx.save(edited)
        }
        await #expect(throws: SyncError.self) { try await oldest.engine.syncNow() }
        #expect(await oldest.engine.status.phase == .updateRequired)
        #expect(try oldest.store.rejectedMutations().isEmpty && oldest.store.conflictedMutations().isEmpty)
        #expect(try await newest.store.read { try $0.fetchOne(RoutineV3.self, id: walk.id) }?.name == "Walk")

        // Updated straight to v3, it sends them through the new names.
        let updated = try await oldest.reopened(as: "oldest", Self.v3(pull), transport, user: user)
        defer { updated.remove() }
        try await updated.engine.syncNow()
        try await newest.engine.syncNow()
        #expect(try await newest.store.read { try $0.fetchOne(RoutineV3.self, id: walk.id) }?.name == "Night walk")
        #expect(try await newest.store.read { try $0.fetchOne(MemoV3.self, id: note.id) }?.heading == "Trip")
        #expect(try updated.store.pendingMutations().isEmpty && updated.store.rejectedMutations().isEmpty)
    }
}
