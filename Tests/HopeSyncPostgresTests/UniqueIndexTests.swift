import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncVerify
import Testing

/// `unique: true` is unique per owner on the server, as each device (one owner's rows) enforces
/// it: one user's write never fails on, and so never learns of, another user's value. A unique
/// index shipped across all owners (before this was so) is replaced by a migration.
@Suite struct UniqueIndexTests {
    static let index = Index(name: "tags_name_key", columns: ["name"], isUnique: true)
    static let table = Table(name: "tags", columns: [Column(name: "name", type: .text)], indexes: [index])
    static let schema = Schema(tables: [table])
    static let initial = Migration(number: 1, name: "initial", changes: [.createTable(table)], schema: schema)
    static let perOwner = Migration(
        number: 2, name: "tags_update_unique_per_owner", changes: [.replaceServerIndex(index, on: table)], schema: schema)

    let alice = UUID(), bob = UUID()

    private func tag(_ name: String, user: UUID) -> [String: String?] {
        ["id": UUID().text, "user_id": user.text, "name": name, "updated_ms": "1", "device_id": "device-a", "deleted_ms": nil]
    }

    /// A database as an older hope-sync left it: the same index, unique across all owners.
    private func shippedGlobally() throws -> ServerDatabase {
        let server = try ServerDatabase.make(Self.schema)
        try server.connection.execute(
            script: """
                drop index public.tags_name_key;
                create unique index tags_name_key on public.tags (name);
                """)
        return server
    }

    @Test func twoUsersMayHoldTheSameUniqueValueOneUserMayNot() throws {
        let server = try ServerDatabase.make(Self.schema)
        #expect(try server.upsert("tags", as: alice, [tag("work", user: alice)]) == 1)
        #expect(try server.upsert("tags", as: bob, [tag("work", user: bob)]) == 1)
        let error = try #require(throws: PostgresError.self) {
            try server.upsert("tags", as: alice, [tag("work", user: alice)])
        }
        #expect(error.sqlState == "23505")
    }

    @Test func theMigrationMakesAShippedGlobalIndexPerOwner() throws {
        let server = try shippedGlobally()
        try server.upsert("tags", as: alice, [tag("work", user: alice)])
        let refused = try #require(throws: PostgresError.self) {
            try server.upsert("tags", as: bob, [tag("work", user: bob)])
        }
        #expect(refused.sqlState == "23505", "the old index leaks alice's value to bob")

        let sql = try TestSchema.renderer.migrationSQL(Self.perOwner)
        #expect(
            sql.hasSuffix(
                """
                drop index if exists public.tags_name_key;
                create unique index if not exists tags_name_key on public.tags (user_id, name);

                """))
        try server.connection.execute(script: sql)
        #expect(try server.upsert("tags", as: bob, [tag("work", user: bob)]) == 1)
        #expect(throws: PostgresError.self) { try server.upsert("tags", as: alice, [tag("work", user: alice)]) }
    }

    @Test func schemaSQLOverAnOlderDatabaseAlsoMakesItPerOwner() throws {
        let server = try shippedGlobally()
        try server.upsert("tags", as: alice, [tag("work", user: alice)])
        let sql = try TestSchema.renderer.schemaSQL(Self.schema, columnOrder: ServerColumnOrder())
        try server.connection.execute(script: sql)
        try server.connection.execute(script: sql) // twice: still idempotent
        #expect(try server.upsert("tags", as: bob, [tag("work", user: bob)]) == 1)
    }

    @Test func verifyExpectsThePerOwnerFormAndItsFixWorks() throws {
        let server = try shippedGlobally()
        let verifier = SchemaVerifier(renderer: TestSchema.renderer)
        let migrations = [Self.initial, Self.perOwner]
        let report = try verifier.verify(Self.schema, migrations: migrations, databaseURL: server.database.url)
        #expect(report.findings.map(\.message) == ["index tags_name_key is unique on (name), expected unique on (user_id, name)"])
        let finding = try #require(report.findings.first)
        #expect(finding.migration == "0002_tags_update_unique_per_owner")
        try server.connection.execute(script: try #require(finding.fix))
        #expect(try verifier.verify(Self.schema, migrations: migrations, databaseURL: server.database.url).isComplete)

        // A fresh database made by the migrations passes.
        let fresh = try PostgresCluster.createDatabase()
        let connection = try fresh.connect()
        for migration in migrations { try connection.execute(script: try TestSchema.renderer.migrationSQL(migration)) }
        #expect(try verifier.verify(Self.schema, migrations: migrations, databaseURL: fresh.url).findings == [])
    }
}
