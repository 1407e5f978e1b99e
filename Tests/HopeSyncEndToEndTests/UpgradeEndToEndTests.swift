import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncUpgradeSchemaV1
import HopeSyncUpgradeSchemaV2
import Testing

/// Upgrades on PostgreSQL through the libpq transport: the server migrated to v2 (its Supabase
/// migrations in order, as `supabase db push` runs them), a v1 device beside a v2 device, and
/// the v1 device upgraded. No value of the new columns is lost, and the upgrade shows them.
@Suite struct UpgradeEndToEndTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/Upgrade")

    let user = UUID()

    func migratedServer() throws -> (TestDatabase, PostgresTransport) {
        let database = try PostgresCluster.createDatabase()
        let folder = Self.fixtures.appendingPathComponent("v2/Generated/supabase/migrations")
        let connection = try database.connect()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            try connection.execute(script: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
        return (database, PostgresTransport(url: database.url))
    }

    func device(_ name: String, _ schema: AppSchema, _ transport: PostgresTransport, path: String? = nil) throws -> (
        SyncStore, SyncEngine, String
    ) {
        let path = path ?? FileManager.default.temporaryDirectory.appendingPathComponent("upgrade-\(name)-\(UUID().uuidString).sqlite").path
        let store = try SyncStore(path: path, schema: schema, userID: user, deviceID: name)
        let engine = SyncEngine(store: store, transport: transport, configuration: Device.configuration) { [user] in Credentials(user) }
        return (store, engine, path)
    }

    @Test func anOldBuildBesideANewOneAndItsUpgradeLoseNothing() async throws {
        let (_, transport) = try migratedServer()
        let v1 = AppSchema(
            tables: HopeSyncUpgradeSchemaV1.GeneratedSchema.tables, migrations: HopeSyncUpgradeSchemaV1.GeneratedSchema.migrations)
        let v2 = AppSchema(
            tables: HopeSyncUpgradeSchemaV2.GeneratedSchema.tables, migrations: HopeSyncUpgradeSchemaV2.GeneratedSchema.migrations)
        let (oldStore, oldEngine, oldPath) = try device("old", v1, transport)
        let (newStore, newEngine, newPath) = try device("new", v2, transport)
        defer { for path in [oldPath, newPath] { try? FileManager.default.removeItem(atPath: path) } }

        let habit = try await oldStore.write { try $0.save(HopeSyncUpgradeSchemaV1.Habit(name: "Run")) }
        let note = try await oldStore.write { try $0.save(HopeSyncUpgradeSchemaV1.Note(title: "Groceries")) }
        try await oldEngine.syncNow()
        try await newEngine.syncNow()
        try await newStore.write { tx in
            var withEmoji = try #require(try tx.fetchOne(HopeSyncUpgradeSchemaV2.Habit.self, id: habit.id))
            withEmoji.emoji = "🏃"
            try tx.save(withEmoji)
            var pinned = try #require(try tx.fetchOne(HopeSyncUpgradeSchemaV2.Note.self, id: note.id))
            pinned.pinned = true
            try tx.save(pinned)
        }
        try await newEngine.syncNow()
        try await oldEngine.syncNow()
        try await oldStore.write { tx in
            var renamed = try #require(try tx.fetchOne(HopeSyncUpgradeSchemaV1.Habit.self, id: habit.id))
            renamed.name = "Morning run"
            try tx.save(renamed)
            var retitled = try #require(try tx.fetchOne(HopeSyncUpgradeSchemaV1.Note.self, id: note.id))
            retitled.title = "Groceries for Sunday"
            try tx.save(retitled)
        }
        try await oldEngine.syncNow()
        try await newEngine.syncNow()
        let seen = try #require(try await newStore.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Habit.self, id: habit.id) })
        #expect(seen.emoji == "🏃" && seen.name == "Morning run")
        #expect(try await newStore.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Note.self, id: note.id) }?.pinned == true)

        // The old build updates: the same file, opened with v2.
        await oldEngine.stop()
        oldStore.close()
        let (upgraded, upgradedEngine, _) = try device("old", v2, transport, path: oldPath)
        let pass = try await upgradedEngine.syncNow()
        #expect(pass.pushed == 0)
        let shown = try #require(try await upgraded.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Habit.self, id: habit.id) })
        #expect(shown.emoji == "🏃" && shown.name == "Morning run")
        let shownNote = try #require(try await upgraded.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Note.self, id: note.id) })
        #expect(shownNote.pinned == true && shownNote.title == "Groceries for Sunday")
        try await upgraded.write { tx in
            var recoloured = shown
            recoloured.color = "#00FF00"
            try tx.save(recoloured)
        }
        try await upgradedEngine.syncNow()
        try await newEngine.syncNow()
        let final = try #require(try await newStore.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Habit.self, id: habit.id) })
        #expect(final.emoji == "🏃" && final.name == "Morning run" && final.color == "#00FF00")
        upgraded.close()
    }
}
