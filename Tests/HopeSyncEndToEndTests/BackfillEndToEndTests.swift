import Foundation
@_spi(Transport) import HopeSync
import HopeSyncLifecycleSchemaV3
import HopeSyncLifecycleSchemaV4
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

private typealias HabitV3 = HopeSyncLifecycleSchemaV3.Habit
private typealias NoteV3 = HopeSyncLifecycleSchemaV3.Note
private typealias HabitV4 = HopeSyncLifecycleSchemaV4.Habit
private typealias NoteV4 = HopeSyncLifecycleSchemaV4.Note

/// Backfills on PostgreSQL (decision 0053), with the lifecycle fixture's v4: habits.initial
/// (column merge) and notes.title_length (a version table) are added and filled once by the
/// server. Builds of v3 and v4 sync through the libpq transport, both pull protocols.
@Suite struct BackfillEndToEndTests {
    private typealias Build = LifecycleEndToEndTests.Build
    let user = UUID()

    static func v4(_ pull: String?) -> AppSchema {
        AppSchema(
            tables: HopeSyncLifecycleSchemaV4.GeneratedSchema.tables, migrations: HopeSyncLifecycleSchemaV4.GeneratedSchema.migrations,
            pullFunction: pull)
    }

    static func schemaSQL(_ step: String) throws -> String {
        try String(
            contentsOf: LifecycleEndToEndTests.fixtures.appendingPathComponent("\(step)/Generated/supabase/schema.sql"), encoding: .utf8)
    }

    private func habit(_ build: Build, _ id: UUID) async throws -> HabitV4? {
        try await build.store.read { try $0.fetchOne(HabitV4.self, id: id) }
    }

    private func noteRow(_ build: Build, _ id: UUID) async throws -> NoteV4? {
        try await build.store.read { try $0.fetchOne(NoteV4.self, id: id) }
    }

    @Test(arguments: LifecycleEndToEndTests.pulls)
    func everyBuildPullsTheBackfilledValuesAndADevicesWriteOfTheColumnWins(_ pull: String?) async throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try LifecycleEndToEndTests.migrate(connection, to: "v3")
        let transport = PostgresTransport(url: database.url)
        let writer = try Build("writer", LifecycleEndToEndTests.v3(pull), transport, user: user)
        let early = try Build("early", LifecycleEndToEndTests.v3(pull), transport, user: user)
        let laggard = try Build("laggard", LifecycleEndToEndTests.v3(pull), transport, user: user)
        defer { laggard.remove() }
        let run = try await writer.store.write { try $0.save(HabitV3(title: "run", color: "#111111")) }
        let walk = try await writer.store.write { try $0.save(HabitV3(title: "walk", color: "#222222")) }
        let note = try await writer.store.write { try $0.save(NoteV3(title: "Groceries", body: "milk")) }
        for device in [writer, early, laggard] { try await device.engine.syncNow() }

        // One device updates before the server migrates: its pass stops at the schema drift
        // (the columns are not there yet), and the table it pulls again waits for them.
        let earlyV4 = try await early.reopened(as: "early", Self.v4(pull), transport, user: user)
        defer { earlyV4.remove() }
        await #expect(throws: SyncError.self) { try await earlyV4.engine.syncNow() }
        // A v3 build's guarded edit of the note, queued at version 1, goes out after the backfill.
        try await laggard.store.write { tx in
            var edited = try #require(try tx.fetchOne(NoteV3.self, id: note.id))
            edited.title = "Groceries for Sunday"
            try tx.save(edited)
        }

        let lastSeq = try #require(try connection.execute("select last_value::text from public.sync_server_seq").scalar)
        let newestMark = "select xid::text from public.sync_marks where user_id = $1 order by xid desc limit 1"
        let markBefore = try connection.execute(newestMark, [user.uuidString.lowercased()]).scalar
        try LifecycleEndToEndTests.migrate(connection, to: "v4", from: 4)
        // Writes like any other: past every server_seq before, the version moved, the owner marked.
        #expect(try connection.execute("select count(*)::text from public.habits where server_seq <= $1", [lastSeq]).scalar == "0")
        #expect(try connection.execute("select version::text from public.notes").scalar == "2")
        #expect(try connection.execute(newestMark, [user.uuidString.lowercased()]).scalar != markBefore)
        let updated = try await writer.reopened(as: "writer", Self.v4(pull), transport, user: user)
        let fresh = try Build("fresh", Self.v4(pull), transport, user: user)
        defer { for build in [updated, fresh] { build.remove() } }
        for device in [updated, fresh, earlyV4] { try await device.engine.syncNow() }
        for device in [updated, fresh, earlyV4] {
            #expect(try await habit(device, run.id)?.initial == "R", "\(device.path)")
            #expect(try await habit(device, walk.id)?.initial == "W", "\(device.path)")
            #expect(try await noteRow(device, note.id)?.titleLength == 9, "\(device.path)")
        }

        // The v3 build keeps syncing (the floor stays 2): its queued guarded write lands at the
        // version the backfill moved, with no conflict and nothing rejected.
        try await laggard.engine.syncNow()
        #expect(try laggard.store.pendingMutations().isEmpty)
        #expect(try laggard.store.conflictedMutations().isEmpty && laggard.store.rejectedMutations().isEmpty)
        let swim = try await laggard.store.write { try $0.save(HabitV3(title: "swim", color: "#333333")) }
        try await laggard.engine.syncNow()
        try await fresh.engine.syncNow()
        let landed = try #require(try await noteRow(fresh, note.id))
        #expect(landed.title == "Groceries for Sunday" && landed.titleLength == 9, "a backfill runs once: no trigger follows the title")
        #expect(landed.version == 3, "the backfill's version, then the v3 build's edit")
        #expect(try await habit(fresh, swim.id)?.initial == nil)

        // A device whose clock is far behind writes the new column: its write wins over the
        // backfill, on the server and on every device.
        let slow = try Build("slow", Self.v4(pull), transport, user: user, wallClock: { 1_000 })
        defer { slow.remove() }
        try await slow.engine.syncNow()
        try await slow.store.write { tx in
            var edited = try #require(try tx.fetchOne(HabitV4.self, id: run.id))
            edited.initial = "r"
            try tx.save(edited)
        }
        try await slow.engine.syncNow()
        for device in [updated, fresh] {
            try await device.engine.syncNow()
            #expect(try await habit(device, run.id)?.initial == "r")
        }
        // Its stamp is below any device's write, even one stamped at 1 ms after 1970.
        try connection.request(asUser: user) { connection in
            try connection.execute(#"select set_config('request.headers', '{"x-sync-schema": "4"}', true)"#)
            try connection.execute(
                "update public.habits set initial = 'w', column_stamps = column_stamps || '{\"initial\": \"000000000000001:clockless\"}' where id = $1",
                [walk.id.uuidString.lowercased()])
        }
        #expect(try connection.execute("select initial from public.habits where id = $1", [walk.id.uuidString.lowercased()]).scalar == "w")

        // schema.sql pasted again: no backfill runs again, no row is written, no value
        // overwritten (swim's initial, null, stays so).
        let before = try connection.execute("select id::text, initial, server_seq::text from public.habits order by id").rows.map(\.values)
        let notesBefore = try connection.execute("select id::text, version::text, server_seq::text from public.notes").rows.map(\.values)
        try connection.execute(script: try Self.schemaSQL("v4"))
        #expect(
            try connection.execute("select id::text, initial, server_seq::text from public.habits order by id").rows.map(\.values) == before
        )
        #expect(
            try connection.execute("select id::text, version::text, server_seq::text from public.notes").rows.map(\.values) == notesBefore)
        #expect(
            try connection.execute("select string_agg(name, ',' order by name) from public.sync_backfills").scalar
                == "habits.initial@4,notes.title_length@4")
    }

    /// A server brought from v3 to v4 by pasting schema.sql instead of the migrations runs the
    /// same backfills, once, under the same names (a migration run after it runs none again).
    @Test func pastingSchemaSQLOverAnOlderServerBackfillsOnceUnderTheMigrationsNames() async throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try LifecycleEndToEndTests.migrate(connection, to: "v3")
        let transport = PostgresTransport(url: database.url)
        let device = try Build("device", LifecycleEndToEndTests.v3(nil), transport, user: user)
        let run = try await device.store.write { try $0.save(HabitV3(title: "run", color: "#111111")) }
        try await device.engine.syncNow()
        let seq = try connection.execute("select server_seq::text from public.habits").scalar

        try connection.execute(script: try Self.schemaSQL("v4"))
        #expect(try connection.execute("select initial from public.habits").scalar == "R")
        #expect(try connection.execute("select server_seq::text from public.habits").scalar != seq, "a write the devices pull")
        try LifecycleEndToEndTests.migrate(connection, to: "v4", from: 4)
        #expect(try connection.execute("select count(*)::text from public.sync_backfills").scalar == "2")

        let updated = try await device.reopened(as: "device", Self.v4(nil), transport, user: user)
        defer { updated.remove() }
        try await updated.engine.syncNow()
        #expect(try await habit(updated, run.id)?.initial == "R")
    }
}
