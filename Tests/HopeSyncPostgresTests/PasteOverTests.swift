import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// schema.sql pasted over any state an earlier generate left a database in (the shipped
/// migrations up to any point, or an earlier schema.sql) ends where the migrations end, column
/// order included, for the project, every fixture and every reference schema, from the files as
/// they are committed.
@Suite struct PasteOverTests {
    /// A project that pasted the SQL of an earlier hope-sync (migration 0001 alone), then the
    /// new schema.sql: the triggers read column_stamps, so the paste must add it. Both a device
    /// that sends stamps and a whole-row client (none sent: the trigger stamps every column at
    /// the row's pair) are taken, and the stamps stored.
    @Test func schemaSQLPastedOverTheFirstMigrationTakesWrites() throws {
        let tree = try GeneratedTree.read(from: GeneratedPgTAPTests.packageRoot.appendingPathComponent("Generated"))
        let database = try PostgresCluster.createDatabase()
        let server = ServerDatabase(database: database, connection: try database.connect())
        try server.connection.execute(script: try #require(UpgradePaths.migrations(in: tree.files).first))
        try server.connection.execute(script: try #require(tree["supabase/schema.sql"]))

        let user = UUID()
        let rows: [(String, (UUID) -> [String: String?], [String])] = [
            ("activities", { activity($0, user: user, name: "Work", updatedMs: 100) }, ColumnMergeTests.activityStamped),
            (
                "sessions", { session($0, user: user, start: 10, end: 20, updatedMs: 100) },
                ColumnMergeTests.sessionStamped.filter { $0 != "tag" }
            ),
        ]
        for (table, row, stamped) in rows {
            let (sent, whole) = (UUID(), UUID())
            let copy = DeviceCopy(row(sent), stamped: stamped, at: 100, by: "device-a")
            #expect(throws: Never.self, "\(table)") { try server.upsert(table, as: user, [copy.row]) }
            #expect(throws: Never.self, "\(table)") { try server.upsert(table, as: user, [row(whole)]) }
            #expect(try storedStamps(server, table, sent) == copy.stamps, "\(table)")
            #expect(try storedStamps(server, table, whole) == copy.stamps, "\(table)")
        }
    }

    @Test func everyPrefixOfTheProjectsMigrationsThenSchemaSQLEndsAsTheMigrations() throws {
        try Self.expectEveryWayAlike("Generated")
    }

    @Test(arguments: GeneratedPgTAPTests.fixtures)
    func everyPrefixOfAFixturesMigrationsThenSchemaSQLEndsAsTheMigrations(_ path: String) throws {
        try Self.expectEveryWayAlike(path + "/Generated", earlier: (Self.earlierStates[path] ?? []).map { $0 + "/Generated" })
    }

    @Test(arguments: GeneratedPgTAPTests.referenceCases)
    func everyPrefixOfAReferencesMigrationsThenSchemaSQLEndsAsTheMigrations(_ name: String) throws {
        try Self.expectEveryWayAlike("Tests/HopeSyncGeneratorTests/References/\(name)/expected")
    }

    /// The upgrade fixture's v1 is an earlier state of v2 (the same migration 0001), so v2's
    /// schema.sql is also pasted over v1's; the lifecycle fixture's each step over every earlier.
    static let earlierStates = [
        "Tests/Fixtures/Upgrade/v2": ["Tests/Fixtures/Upgrade/v1"],
        "Tests/Fixtures/Lifecycle/v2": ["Tests/Fixtures/Lifecycle/v1"],
        "Tests/Fixtures/Lifecycle/v3": ["Tests/Fixtures/Lifecycle/v1", "Tests/Fixtures/Lifecycle/v2"],
        "Tests/Fixtures/TableRename/v2": ["Tests/Fixtures/TableRename/v1"],
        "Tests/Fixtures/TableRename/v3": ["Tests/Fixtures/TableRename/v1", "Tests/Fixtures/TableRename/v2"],
        "Tests/Fixtures/Lifecycle/v4": ["Tests/Fixtures/Lifecycle/v1", "Tests/Fixtures/Lifecycle/v2", "Tests/Fixtures/Lifecycle/v3"],
    ]

    /// `generated` and each of `earlier` are Generated/ folders, relative to the package.
    static func expectEveryWayAlike(_ generated: String, earlier: [String] = []) throws {
        let root = GeneratedPgTAPTests.packageRoot
        let files = try GeneratedTree.read(from: root.appendingPathComponent(generated)).files
        let earlierSchemaSQL = try earlier.map {
            try String(contentsOf: root.appendingPathComponent($0 + "/supabase/schema.sql"), encoding: .utf8)
        }
        let problems = try UpgradePaths.problems(in: files, earlierSchemaSQL: earlierSchemaSQL)
        #expect(problems.isEmpty, "\(generated):\n\(problems.joined(separator: "\n"))")
    }
}
