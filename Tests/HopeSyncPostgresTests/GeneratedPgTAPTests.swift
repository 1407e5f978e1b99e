import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import Testing

/// The generated pgTAP file (Generated/supabase/tests/sync_test.sql) passes on the test cluster,
/// over the schema.sql generated beside it: for the project's schema.yaml and every reference
/// schema and fixture app. It runs as `supabase test db` would, and leaves the database as it found it.
@Suite struct GeneratedPgTAPTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let references = packageRoot.appendingPathComponent("Tests/HopeSyncGeneratorTests/References")
    static let referenceCases = (try? FileManager.default.contentsOfDirectory(atPath: references.path).sorted()) ?? []
    static let fixtures = [
        "Tests/Fixtures/Upgrade/v1", "Tests/Fixtures/Upgrade/v2", "Tests/Fixtures/Upgrade/v3", "Tests/Fixtures/HabitApp",
        "Tests/Fixtures/Lifecycle/v1", "Tests/Fixtures/Lifecycle/v2", "Tests/Fixtures/Lifecycle/v3",
        "Tests/Fixtures/TableRename/v1", "Tests/Fixtures/TableRename/v2", "Tests/Fixtures/TableRename/v3",
        "Tests/Fixtures/Lifecycle/v4",
    ]

    @Test func theProjectsGeneratedTestsPass() throws {
        try Self.runGenerated(in: Self.packageRoot.appendingPathComponent("Generated"))
    }

    @Test(arguments: referenceCases)
    func eachReferenceSchemasGeneratedTestsPass(_ name: String) throws {
        try Self.runGenerated(in: Self.references.appendingPathComponent(name).appendingPathComponent("expected"))
    }

    @Test(arguments: fixtures)
    func eachFixturesGeneratedTestsPass(_ path: String) throws {
        try Self.runGenerated(in: Self.packageRoot.appendingPathComponent(path).appendingPathComponent("Generated"))
    }

    /// The paths no schema above takes: whole-row merge with the open-row rule, a version table
    /// with it, and a table whose columns cannot take three values (no column-merge tests).
    @Test func generatedTestsPassForRowMergeAndVersionOpenRows() throws {
        let yaml = """
            tables:
              stopwatches:
                merge: row
                columns:
                  started_ms: int
                  ended_ms: int?
                  running: bool
                rules:
                  - one_open_per_owner: { start: started_ms, end: ended_ms }
              shifts:
                conflict: { mode: version, version: integer }
                columns:
                  started_ms: int
                  ended_ms: int?
                  label: { type: enum, values: [a, b] }
                rules:
                  - one_open_per_owner: { start: started_ms, end: ended_ms }
              switches:
                columns:
                  enabled: bool
                  kind: { type: enum, values: [x] }
            """
        let schema = try SchemaParser.parse(yaml).schema
        let templates = try TemplateSet(directory: nil)
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.createRealtimeSchema()
        try connection.execute(script: try SupabaseRenderer(templates: templates).schemaSQL(schema, columnOrder: ServerColumnOrder()))
        try connection.createPgTAP()
        let run = try TAPRun(file: try SupabaseTestRenderer(templates: templates).testsSQL(schema), on: connection)
        #expect(run.allPassed, "\(run.report)")
        #expect(run.passed.contains { $0.hasSuffix("stopwatches: a write with an older pair changes nothing") })
        #expect(run.passed.contains { $0.hasSuffix("shifts: a new open row closes the earlier one at its start") })
        #expect(!run.lines.contains { $0.contains("switches: concurrent edits") })
    }

    /// Shared schemas: Tests/Fixtures/Sharing/schema.yaml (version tables: a scope table, a
    /// table scoped by a column, one following it) and the same shapes last writer wins (the
    /// scope merged column by column, the scoped table by row, the follower by column). Every
    /// table's tests pass, and the scope table's sharing tests with them.
    @Test(arguments: ["fixture", "lww"])
    func generatedTestsPassForASharedSchema(_ which: String) throws {
        let url = Self.packageRoot.appendingPathComponent("Tests/Fixtures/Sharing/schema.yaml")
        let yaml =
            which == "fixture"
            ? try String(contentsOf: url, encoding: .utf8)
            : """
            tables:
              boards:
                scope: true
                columns:
                  name: text
              cards:
                scope: board_id
                merge: row
                columns:
                  board_id: { type: uuid, nullable: true, references: boards }
                  title: text
              notes:
                scope: card_id
                columns:
                  card_id: { type: uuid, references: cards }
                  caption: text
            """
        let schema = try SchemaParser.parse(yaml).schema
        let templates = try TemplateSet(directory: nil)
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.createRealtimeSchema()
        try connection.execute(script: try SupabaseRenderer(templates: templates).schemaSQL(schema, columnOrder: ServerColumnOrder()))
        try connection.createPgTAP()
        let run = try TAPRun(file: try SupabaseTestRenderer(templates: templates).testsSQL(schema), on: connection)
        #expect(run.allPassed, "\(run.report)")
        for name in ["an owner shares the scope", "a viewer cannot write the scope", "the last owner cannot leave"] {
            #expect(run.passed.contains { $0.hasSuffix("\(schema.scopeTables[0].name): \(name)") }, "\(name)")
        }
        let scoped = try #require(schema.tables.first { $0.sharing != nil && $0.sharing != .scope })
        #expect(!run.lines.contains { $0.contains("\(scoped.name): an owner shares the scope") }, "only scope tables have sharing tests")
    }

    /// The tests roll back: the tables hold the same rows before and after, and a second run
    /// passes too.
    @Test func theGeneratedTestsLeaveNothingBehind() throws {
        let generated = Self.packageRoot.appendingPathComponent("Generated")
        let connection = try Self.prepare(generated)
        let tests = try String(contentsOf: generated.appendingPathComponent(SupabaseTestRenderer.path), encoding: .utf8)
        let count =
            "select (select count(*) from public.activities) + (select count(*) from public.sessions) + (select count(*) from public.tasks) + (select count(*) from public.task_lists)"
        #expect(try TAPRun(file: tests, on: connection).allPassed)
        #expect(try connection.execute(count).scalar == "0")
        #expect(try TAPRun(file: tests, on: connection).allPassed)
    }

    /// A server that breaks a promise fails the generated tests: without row-level security on
    /// one table, Bob reads Alice's row.
    @Test func theGeneratedTestsCatchATableWithoutRowLevelSecurity() throws {
        let generated = Self.packageRoot.appendingPathComponent("Generated")
        let connection = try Self.prepare(generated)
        try connection.execute("alter table public.activities disable row level security")
        let tests = try String(contentsOf: generated.appendingPathComponent(SupabaseTestRenderer.path), encoding: .utf8)
        let run = try TAPRun(file: tests, on: connection)
        #expect(!run.allPassed)
        #expect(run.failed.contains { $0.hasSuffix("activities: Bob cannot read Alice's row") })
    }

    /// Without the policies on realtime.messages, Alice may join Bob's poke topic: the
    /// generated tests say so.
    @Test func theGeneratedTestsCatchAPokeTopicOpenToOthers() throws {
        let generated = Self.packageRoot.appendingPathComponent("Generated")
        let connection = try Self.prepare(generated)
        try connection.execute(
            script: """
                drop policy sync_pokes_read_own on realtime.messages;
                create policy everyone_reads on realtime.messages for select to authenticated using (true);
                """)
        let tests = try String(contentsOf: generated.appendingPathComponent(SupabaseTestRenderer.path), encoding: .utf8)
        let run = try TAPRun(file: tests, on: connection)
        #expect(run.failed.contains { $0.hasSuffix("pokes: Alice can neither join nor read Bob's topic") })
    }

    /// A fresh database as a Supabase project has it (Realtime's schema included) with the
    /// folder's schema.sql and pgTAP.
    static func prepare(_ generated: URL) throws -> Connection {
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.createRealtimeSchema()
        try connection.execute(script: String(contentsOf: generated.appendingPathComponent("supabase/schema.sql"), encoding: .utf8))
        try connection.createPgTAP()
        return connection
    }

    static func runGenerated(in generated: URL) throws {
        let connection = try prepare(generated)
        let tests = try String(contentsOf: generated.appendingPathComponent(SupabaseTestRenderer.path), encoding: .utf8)
        let run = try TAPRun(file: tests, on: connection)
        #expect(run.allPassed, "\(generated.path):\n\(run.report)")
        #expect((run.planned ?? 0) > 0)
    }
}
