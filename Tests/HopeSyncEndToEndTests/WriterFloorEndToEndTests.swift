import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import HopeSyncUpgradeSchemaV1
import HopeSyncUpgradeSchemaV2
import HopeSyncVerify
import Testing

/// The writer floor on PostgreSQL (decision 0051): the server migrated to v2, then to v3, whose
/// `oldest_writer: 9` refuses the v1 build (schema version 8). Every request states its build's
/// version; the daily hello records each device's; the refused build keeps its writes, keeps
/// pulling and sends nothing more until it is updated, and then its writes land.
@Suite struct WriterFloorEndToEndTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/Upgrade")
    static let v1 = AppSchema(
        tables: HopeSyncUpgradeSchemaV1.GeneratedSchema.tables, migrations: HopeSyncUpgradeSchemaV1.GeneratedSchema.migrations)
    static let v2 = AppSchema(
        tables: HopeSyncUpgradeSchemaV2.GeneratedSchema.tables, migrations: HopeSyncUpgradeSchemaV2.GeneratedSchema.migrations)

    let user = UUID()
    let database: TestDatabase

    init() throws {
        database = try PostgresCluster.createDatabase()
        try apply(Self.fixtures.appendingPathComponent("v2/Generated/supabase/migrations"))
    }

    /// The migrations of `folder`, in order, as `supabase db push` runs them.
    func apply(_ folder: URL) throws {
        let connection = try database.connect()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            try connection.execute(script: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
    }

    /// The server raised to v3: its one new migration sets the floor.
    func raiseTheFloor() throws {
        let folder = Self.fixtures.appendingPathComponent("v3/Generated/supabase/migrations")
        let floor = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().last)
        #expect(floor.hasSuffix("0010_update_shared_server_code.sql"))
        try database.connect().execute(script: String(contentsOf: folder.appendingPathComponent(floor), encoding: .utf8))
    }

    func device(
        _ name: String, _ schema: AppSchema, path: String? = nil, configuration sync: SyncConfiguration = Device.configuration
    ) throws -> (SyncStore, SyncEngine, CountingTransport, String) {
        let path = path ?? FileManager.default.temporaryDirectory.appendingPathComponent("floor-\(name)-\(UUID().uuidString).sqlite").path
        let store = try SyncStore(path: path, schema: schema, userID: user, deviceID: name)
        // A transport wrapping another states what the wrapped one was made with.
        var configuration = PostgresTransport.Configuration(url: database.url)
        configuration.schemaVersion = schema.schemaVersion
        let transport = CountingTransport(PostgresTransport(configuration: configuration))
        let engine = SyncEngine(store: store, transport: transport, configuration: sync) { [user] in Credentials(user) }
        return (store, engine, transport, path)
    }

    func devicesSeen() throws -> [String: Int] {
        let rows = try database.connect().execute("select device_id, schema_version::text from public.sync_devices").rows
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0] ?? "", Int($0[1] ?? "") ?? -1) })
    }

    @Test func anOldBuildBelowTheFloorKeepsItsWritesAndPullsUntilItsUpgradeSendsThem() async throws {
        #expect(Self.v1.schemaVersion == 8 && Self.v2.schemaVersion == 9)
        let (oldStore, oldEngine, oldTransport, oldPath) = try device("old", Self.v1)
        let (newStore, newEngine, _, newPath) = try device("new", Self.v2)
        defer { for path in [oldPath, newPath] { try? FileManager.default.removeItem(atPath: path) } }

        // No floor yet: both builds write, and each says hello with its version.
        let habit = try await oldStore.write { try $0.save(HopeSyncUpgradeSchemaV1.Habit(name: "Run")) }
        let note = try await oldStore.write { try $0.save(HopeSyncUpgradeSchemaV1.Note(title: "Groceries")) }
        try await oldEngine.syncNow()
        try await newEngine.syncNow()
        #expect(try devicesSeen() == ["old": 8, "new": 9])
        let census = try #require(try DeviceCensus(reading: database.connect(), days: 30, oldestWriter: 9))
        #expect(census.description.contains("version 9: 1 device\n  version 8: 1 device (below oldest_writer 9: may not write)"))

        try raiseTheFloor()
        try await oldStore.write { tx in
            var renamed = try #require(try tx.fetchOne(HopeSyncUpgradeSchemaV1.Habit.self, id: habit.id))
            renamed.name = "Morning run"
            try tx.save(renamed)
            var retitled = try #require(try tx.fetchOne(HopeSyncUpgradeSchemaV1.Note.self, id: note.id))
            retitled.title = "Groceries for Sunday"
            try tx.save(retitled)
            try tx.save(HopeSyncUpgradeSchemaV1.Habit(name: "Read"))
        }
        let written = try await newStore.write { try $0.save(HopeSyncUpgradeSchemaV2.Habit(name: "Swim", emoji: "🏊")) }
        try await newEngine.syncNow()

        // Today's hello was said before the floor: the push meets it (PT426) and stops there.
        await #expect(throws: SyncError.self) { try await oldEngine.syncNow() }
        let refused = await oldEngine.status
        #expect(refused.phase == .updateRequired)
        #expect(refused.lastError?.code == .updateRequired)
        #expect(refused.dirtyCount == 2 && refused.pendingCount == 1)
        #expect(refused.rejectedCount == 0 && refused.conflictedCount == 0)
        // Its pull ran: the new build's write is there.
        #expect(try await oldStore.read { try $0.fetchOne(HopeSyncUpgradeSchemaV1.Habit.self, id: written.id) }?.name == "Swim")
        let sentBefore = oldTransport.upserts(into: "habits") + oldTransport.upserts(into: "notes")

        // No loop of refused pushes: the next passes send no write at all, and still pull.
        let swum = try await newStore.write { try $0.save(HopeSyncUpgradeSchemaV2.Habit(name: "Cycle")) }
        try await newEngine.syncNow()
        await #expect(throws: SyncError.self) { try await oldEngine.syncNow() }
        #expect(oldTransport.upserts(into: "habits") + oldTransport.upserts(into: "notes") == sentBefore)
        #expect(try await oldStore.read { try $0.fetchOne(HopeSyncUpgradeSchemaV1.Habit.self, id: swum.id) } != nil)
        let server = try database.connect()
        #expect(try server.execute("select name from public.habits where id = $1", [habit.id.lowercasedString]).scalar == "Run")

        // The app is updated: the same file opened with v2 says hello again, and its writes land.
        await oldEngine.stop()
        oldStore.close()
        let (upgraded, upgradedEngine, _, _) = try device("old", Self.v2, path: oldPath)
        let pass = try await upgradedEngine.syncNow()
        #expect(pass.pushed >= 2)
        #expect(await upgradedEngine.status.phase == .idle)
        #expect(try devicesSeen() == ["old": 9, "new": 9])
        try await newEngine.syncNow()
        #expect(try await newStore.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Habit.self, id: habit.id) }?.name == "Morning run")
        #expect(
            try await newStore.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Note.self, id: note.id) }?.title == "Groceries for Sunday")
        #expect(try await newStore.read { try $0.fetchAll(HopeSyncUpgradeSchemaV2.Habit.self) }.contains { $0.name == "Read" })
        upgraded.close()
    }

    /// A build the floor already passed learns it from its first hello, and sends no write.
    @Test func theHelloTellsAnOldBuildBeforeItPushes() async throws {
        try raiseTheFloor()
        let (store, engine, transport, path) = try device("late", Self.v1)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await store.write { try $0.save(HopeSyncUpgradeSchemaV1.Habit(name: "Walk")) }
        await #expect(throws: SyncError.self) { try await engine.syncNow() }
        #expect(await engine.status.phase == .updateRequired)
        #expect(transport.upserts(into: "habits") == 0)
        #expect(try devicesSeen() == ["late": 8])
        store.close()
    }

    /// One hello a day: the passes between send none (an idle pass writes nothing), and the
    /// first pass of the next day says it again.
    @Test func aDeviceSaysHelloOnceADay() async throws {
        let today = Locked(Date(timeIntervalSince1970: 1_796_000_000))
        var configuration = Device.configuration
        configuration.now = { today.value }
        let (store, engine, transport, path) = try device("daily", Self.v2, configuration: configuration)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for _ in 0..<3 { try await engine.syncNow() }
        #expect(transport.hellos == 1)
        today.withLock { $0 += 86_400 }
        try await engine.syncNow()
        try await engine.syncNow()
        #expect(transport.hellos == 2)
        #expect(try devicesSeen() == ["daily": 9])
        store.close()
    }

    /// Writes of other clients (no header: version 0) are refused too; the service role's are not.
    @Test func theFloorChecksEverySignedInWriterButNotTheServiceRole() throws {
        try raiseTheFloor()
        let connection = try database.connect()
        let claims = #"{"sub": "\#(user.lowercasedString)", "role": "authenticated"}"#
        func insert(headers: String) throws {
            try connection.execute("begin")
            defer { _ = try? connection.execute("rollback") }
            try connection.execute(
                "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true), set_config('request.headers', $2, true)",
                [claims, headers])
            try connection.execute("insert into public.habits (id, name, updated_ms, device_id) values (gen_random_uuid(), 'x', 1, 'd')")
        }
        for headers in ["{}", #"{"x-sync-schema":"8"}"#, #"{"x-sync-schema":"nine"}"#] {
            #expect {
                try insert(headers: headers)
            } throws: { error in
                (error as? PostgresError)?.sqlState == "PT426"
            }
        }
        try insert(headers: #"{"x-sync-schema":"9"}"#)
        try connection.execute(
            "insert into public.habits (id, user_id, name, updated_ms, device_id) values (gen_random_uuid(), $1, 'admin', 1, 'd')",
            [user.lowercasedString])
    }
}
