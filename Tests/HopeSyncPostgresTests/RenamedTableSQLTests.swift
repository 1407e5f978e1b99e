import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import Testing

/// A renamed table's old name on PostgreSQL 15 (decision 0054), on the table rename fixture's
/// server: habits is now routines (column merge), notes is now memos (a version table), and each
/// old name a view. Writes as an old build sends them (PostgREST's upsert names the sender's
/// columns), each request as PostgREST runs it.
@Suite struct RenamedTableSQLTests {
    let owner = UUID()
    let other = UUID()
    let connection: Connection

    init() throws {
        connection = try PostgresCluster.createDatabase().connect()
        try migrate(upTo: 2)
    }

    func migrate(upTo last: Int, from first: Int = 1) throws {
        let folder = GeneratedPgTAPTests.packageRoot.appendingPathComponent("Tests/Fixtures/TableRename/v3/Generated/supabase/migrations")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let number = Int(file.split(separator: "_")[1]) ?? 0
            guard number >= first, number <= last else { continue }
            try connection.execute(script: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
    }

    /// An old build's upsert of a habit, through the old name, stating its schema version.
    func upsertHabit(_ id: UUID, _ name: String, at ms: Int, as user: UUID, version: Int = 1) throws {
        let stamp = String(repeating: "0", count: 15 - String(ms).count) + "\(ms):v1"
        try connection.request(asUser: user) { connection in
            try connection.execute(
                "select set_config('request.headers', $1, true)", [#"{"x-sync-schema":"\#(version)"}"#])
            try connection.execute(
                """
                insert into public.habits (id, name, color, updated_ms, device_id, column_stamps)
                values ($1, $2, '#000000', $3, 'v1', pg_catalog.jsonb_build_object('name', $4::text, 'color', $4::text))
                on conflict (id) do update set name = excluded.name, color = excluded.color, updated_ms = excluded.updated_ms,
                  device_id = excluded.device_id, column_stamps = excluded.column_stamps
                """, [id.uuidString.lowercased(), name, String(ms), stamp])
        }
    }

    func read(_ sql: String, as user: UUID, _ parameters: [String?] = []) throws -> [[String?]] {
        try connection.request(asUser: user) { try $0.execute(sql, parameters).rows.map(\.values) }
    }

    @Test func theOldNameIsTheSameRowsUnderTheCallersRowLevelSecurity() throws {
        let id = UUID()
        let key = id.uuidString.lowercased()
        try upsertHabit(id, "Run", at: 1000, as: owner)
        let first = try read("select name, server_seq::text from public.routines where id = $1", as: owner, [key])
        #expect(first.first?[0] == "Run")
        // Through the old name again, a newer write: merged by the table's trigger, server_seq moves.
        try upsertHabit(id, "Long run", at: 2000, as: owner)
        let second = try read("select name, server_seq::text from public.habits where id = $1", as: owner, [key])
        #expect(second.first?[0] == "Long run" && second.first?[1] != first.first?[1])
        // An older one changes nothing.
        try upsertHabit(id, "Stale", at: 1500, as: owner)
        #expect(try read("select name from public.routines where id = $1", as: owner, [key]).first?[0] == "Long run")
        // Another user neither reads it nor writes it, through either name.
        #expect(try read("select count(*)::text from public.habits", as: other) == [["0"]])
        #expect(throws: PostgresError.self) { try upsertHabit(id, "Mine", at: 3000, as: other) }
        let updated = try connection.request(asUser: other) {
            try $0.execute("update public.habits set name = 'Mine' where id = $1", [key])
        }
        #expect(updated.affectedRows == 0)
        #expect(try read("select name from public.routines where id = $1", as: owner, [key]).first?[0] == "Long run")
    }

    @Test func aGuardedWriteThroughTheOldNameMovesTheVersion() throws {
        let id = UUID().uuidString.lowercased()
        try connection.request(asUser: owner) { try $0.execute("insert into public.notes (id, heading) values ($1, 'Trip')", [id]) }
        let moved = try connection.request(asUser: owner) {
            try $0.execute(
                "update public.notes set heading = 'Trip to the sea' where id = $1 and version = 1 returning version::text", [id])
        }
        #expect(moved.rows.first?.values == ["2"])
        let stale = try connection.request(asUser: owner) {
            try $0.execute("update public.notes set heading = 'Old' where id = $1 and version = 1", [id])
        }
        #expect(stale.affectedRows == 0)
        #expect(try read("select heading, version::text from public.memos where id = $1", as: owner, [id]) == [["Trip to the sea", "2"]])
    }

    @Test func afterTheContractTheFloorRefusesWritesThroughTheOldNameAndItsPullsGoOn() throws {
        let id = UUID()
        try upsertHabit(id, "Run", at: 1000, as: owner)
        try migrate(upTo: 3, from: 3)
        do {
            try upsertHabit(id, "Late", at: 2000, as: owner, version: 1)
            Issue.record("a write below the floor through the old name was taken")
        } catch let error as PostgresError {
            #expect(error.sqlState == "PT426", "\(error)")
        }
        try upsertHabit(id, "Walk", at: 3000, as: owner, version: 3)
        let pulled = try connection.request(asUser: owner) { connection in
            try connection.execute("select public.sync_pull('{\"habits\": 0}'::jsonb)").scalar
        }
        #expect(pulled?.contains("\"habits\"") == true && pulled?.contains("\"Walk\"") == true)
    }

    /// After the rename, the table's columns change again (a column renamed, then retired: the
    /// old column dropped, which PostgreSQL refuses under a view that reads it): each migration
    /// makes the old name's view again around the change, and every way to the server (the
    /// migrations, schema.sql over any prefix of them, over earlier schema.sql) ends alike.
    @Test func laterColumnStepsOnARenamedTableEndAsTheMigrations() throws {
        let fixture = GeneratedPgTAPTests.packageRoot.appendingPathComponent("Tests/Fixtures/TableRename/v3")
        let v3 = try String(contentsOf: fixture.appendingPathComponent("schema.yaml"), encoding: .utf8)
        let generator = try Generator(templates: TemplateSet(directory: nil))
        var tree = try GeneratedTree.read(from: fixture.appendingPathComponent("Generated"))
        let v3SQL = try #require(tree["supabase/schema.sql"])
        let v4 = v3.replacingOccurrences(of: "      goal: int?", with: "      target: { type: int, nullable: true, was: goal }")
        tree = try generator.generate(SchemaParser.parse(v4), existing: tree).tree
        let v4SQL = try #require(tree["supabase/schema.sql"])
        let v5 = v3.replacingOccurrences(of: "oldest_writer: 2", with: "oldest_writer: 4")
            .replacingOccurrences(of: "      goal: int?", with: "      target: int?")
        tree = try generator.generate(SchemaParser.parse(v5), existing: tree).tree
        #expect(UpgradePaths.migrations(in: tree.files).count == 5)
        let problems = try UpgradePaths.problems(in: tree.files, earlierSchemaSQL: [v3SQL, v4SQL])
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// A table renamed again once its first rename finished: both old names stay (views, pull
    /// keys), and every way to the server ends alike, from v1's table too.
    @Test func aSecondRenameKeepsEveryOldName() throws {
        let fixture = GeneratedPgTAPTests.packageRoot.appendingPathComponent("Tests/Fixtures/TableRename")
        let v3 = try String(contentsOf: fixture.appendingPathComponent("v3/schema.yaml"), encoding: .utf8)
        var tree = try GeneratedTree.read(from: fixture.appendingPathComponent("v3/Generated"))
        let earlier = try ["v1", "v2", "v3"].map {
            try String(contentsOf: fixture.appendingPathComponent("\($0)/Generated/supabase/schema.sql"), encoding: .utf8)
        }
        let v4 = v3.replacingOccurrences(of: "  routines:\n", with: "  checklists:\n    was: routines\n")
        tree = try Generator(templates: TemplateSet(directory: nil)).generate(SchemaParser.parse(v4), existing: tree).tree
        let schemaSQL = try #require(tree["supabase/schema.sql"])
        #expect(schemaSQL.contains("create view public.habits with (security_invoker = true) as select * from public.checklists;"))
        #expect(schemaSQL.contains("create view public.routines with (security_invoker = true) as select * from public.checklists;"))
        let problems = try UpgradePaths.problems(in: tree.files, earlierSchemaSQL: earlier)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
