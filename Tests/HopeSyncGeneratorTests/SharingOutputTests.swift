import Foundation
import HopeSyncGenerator
import HopeSyncSQLite
import HopeSyncSchema
import HopeSyncTestSupport
import Testing

/// Sharing's local outputs (docs/decisions/0048-sharing-by-scope.md): the membership table and
/// the scope index in SQLite, each table's scope in the Swift and Rust lists, and what
/// `generate` says of the column it adds. The references' shared_scope holds the whole output.
@Suite struct SharingOutputTests {
    static let unshared = """
        tables:
          lists:
            conflict: { mode: version, version: integer }
            columns:
              name: text
          tasks:
            swift_name: TaskItem
            columns:
              title: text
        """

    static let shared = """
        tables:
          lists:
            scope: true
            conflict: { mode: version, version: integer }
            columns:
              name: text
          tasks:
            swift_name: TaskItem
            scope: list_id
            columns:
              title: text
              list_id: { type: uuid, nullable: true, references: lists }
        """

    @Test func aShippedSchemaBecomingSharedIsOneMigrationWithTheMembershipTableAndTheScopeIndex() throws {
        let first = try generate(Self.unshared)
        let second = try generate(Self.shared, existing: first.tree)
        let migration = try #require(second.newMigration)
        #expect(migration.number == 2)
        // The diff's changes (the server's triggers of tasks, re-rendered for the new column, follow):
        // each table starting to be shared gets updated_by too.
        #expect(
            second.snapshot.migrations.last?.changes.prefix(5) == [
                "column lists.updated_by", "sharing lists", "column tasks.updated_by", "sharing tasks", "column tasks.list_id",
            ])
        let local = try #require(second.tree["sqlite/\(migration.fileStem).sql"])
        #expect(
            Set(second.tree.files.keys).subtracting(first.tree.files.keys).filter { $0.hasPrefix("sqlite/") } == [
                "sqlite/\(migration.fileStem).sql"
            ])
        #expect(local.contains("CREATE TABLE lists_members (\n    id TEXT PRIMARY KEY NOT NULL,\n    scope_id TEXT NOT NULL,"))
        #expect(local.contains("    role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),"))
        #expect(local.contains("CREATE INDEX lists_members__scope_idx ON lists_members (scope_id);"))
        // The scope column is added after the table starts being shared: its index comes last.
        let column = try #require(local.range(of: "ALTER TABLE tasks ADD COLUMN list_id TEXT;"))
        let index = try #require(local.range(of: "CREATE INDEX tasks__scope_idx ON tasks (list_id);"))
        #expect(column.upperBound < index.lowerBound)
        #expect(
            local.contains("ALTER TABLE lists ADD COLUMN updated_by TEXT;")
                && local.contains("ALTER TABLE tasks ADD COLUMN updated_by TEXT;"))

        // Every local migration applies in order, and the membership table takes a server row.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hope-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try Database(path: path)
        for file in second.tree.files.keys.filter({ $0.hasPrefix("sqlite/") }).sorted() {
            try database.inTransaction { try database.execute(second.tree[file]!) }
        }
        try database.execute(
            "INSERT INTO lists_members (id, scope_id, user_id, role, added_by, added_at, server_seq) VALUES ('m', 's', 'u', 'editor', 'u', 't', 1)"
        )
        #expect(try database.fetchOne("SELECT _dirty FROM lists_members") { $0.int64(at: 0) } == 0)
    }

    @Test func aSchemaWithoutSharingMakesNoneOfIt() throws {
        let tree = try generate(Self.unshared).tree
        for (path, text) in tree.files where !path.hasPrefix("supabase/") && path != "schema.snapshot.json" {
            #expect(!text.contains("members") && !text.contains("scope"), "\(path)")
        }
    }

    @Test func theTablesListsNameEachTablesScopeAndTheMembershipTableFollowsItsScope() throws {
        let tree = try generate(Self.shared).tree
        let schema = try #require(tree["swift/GeneratedSchema.swift"])
        #expect(schema.contains("        List.table,\n        ListMember.table,\n        TaskItem.table,\n"))
        #expect(tree["swift/List.swift"]!.contains("        scope: .scope(\"lists\", members: \"lists_members\")\n    )"))
        #expect(
            tree["swift/TaskItem.swift"]!.contains(
                "        scope: .scoped(by: \"list_id\", in: \"lists\", members: \"lists_members\")\n    )"))
        let member = try #require(tree["swift/ListMember.swift"])
        #expect(member.contains("public struct ListMember: HopeSync.SyncRecord {"))
        #expect(member.contains("        scope: .membership(of: \"lists\", table: \"lists_members\")\n    )"))
        let rust = try #require(tree["rust/tables.rs"])
        #expect(rust.contains("pub const TABLES: &[Table] = &[LISTS, LISTS_MEMBERS, TASKS];"))
        #expect(
            rust.contains(
                "            \"tasks\" => Some(Scope::Scoped { column: \"list_id\", scope_table: \"lists\", members: \"lists_members\" }),")
        )
        #expect(rust.contains("            \"lists_members\" => Some(Scope::Membership { scope_table: \"lists\" }),"))
    }

    /// A project shared before hope-sync recorded a shared row's last writer: its snapshot's
    /// server columns lack updated_by. The next run adds it to each shared table in one migration
    /// (a real upgrade also re-creates their triggers, whose code changed; here it did not); the
    /// run after that has nothing to do.
    @Test func aProjectSharedBeforeUpdatedByGetsItInOneMigration() throws {
        let current = try generate(Self.shared)
        var older = current.snapshot
        older.serverColumns = older.serverColumns?.mapValues { $0.filter { $0 != "updated_by" } }
        var tree = current.tree
        tree[Snapshot.fileName] = try older.encoded()
        let upgraded = try generate(Self.shared, existing: tree)
        let migration = try #require(upgraded.newMigration)
        #expect(migration.number == 2)
        let changes = try #require(upgraded.snapshot.migrations.last?.changes)
        #expect(changes == ["column lists.updated_by", "column tasks.updated_by"])
        #expect(!changes.contains { $0.hasPrefix("sharing") || $0.hasPrefix("table") })
        let local = try #require(upgraded.tree["sqlite/\(migration.fileStem).sql"])
        #expect(
            local.contains("ALTER TABLE lists ADD COLUMN updated_by TEXT;")
                && local.contains("ALTER TABLE tasks ADD COLUMN updated_by TEXT;"))
        let server = try #require(
            upgraded.tree.files.first { $0.key.hasPrefix("supabase/migrations/") && $0.key.contains(migration.fileStem) }?.value)
        #expect(server.contains("alter table public.tasks add column if not exists updated_by uuid;"))
        #expect(upgraded.snapshot.serverColumns?["tasks"]?.last == "updated_by")
        #expect(try generate(Self.shared, existing: upgraded.tree).newMigration == nil)
    }

    @Test func generateSaysWhichColumnItAddsAndTheOutputsSayItToo() throws {
        let project = try ScratchProject()
        let yaml = try String(contentsOf: ReferenceTests.root.appendingPathComponent("shared_scope/schema.yaml"), encoding: .utf8)
        try project.writeSchema(yaml)
        let run = project.run()
        #expect(run.status == 0)
        let note = "task_photos.list_id is added by hope-sync: task_photos reaches its scope task_lists through task_id"
        #expect(run.out.hasSuffix("\nnote: \(note)"))
        let tree = try project.generatedTree()
        #expect(tree["sqlite/0001_initial.sql"]!.contains("\n-- \(note).\nCREATE TABLE task_photos (\n"))
        #expect(tree["swift/TaskPhoto.swift"]!.contains("/// A row of `task_photos`.\n///\n/// \(note).\npublic struct TaskPhoto"))
    }

    @Test func aMembershipTypeThatATableTakesIsRefusedAtTheScope() throws {
        let yaml = """
            tables:
              lists:
                scope: true
                columns: { name: text }
              list_members:
                columns: { name: text }
            """
        do {
            _ = try generate(yaml)
            Issue.record("generated")
        } catch let error as SchemaError {
            #expect(
                error.description.contains(
                    "schema.yaml:2:3: error: table 'lists' is a scope, so hope-sync adds the Swift type 'ListMember' for its members, which table 'list_members' would take as 'ListMember'"
                ), "\(error.description)")
        }
    }

    /// The generated Rust's `Table::scope` answers each table's scope.
    @Test func theRustListAnswersEachTablesScope() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hope-rust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let tables = ReferenceTests.root.appendingPathComponent("shared_scope/expected/rust/tables.rs")
        let test = scratch.appendingPathComponent("main.rs")
        try Data(
            """
            #[path = "\(tables.path)"]
            mod tables;
            use tables::Scope;

            fn main() {
                let names: Vec<&str> = tables::TABLES.iter().map(|t| t.name).collect();
                assert_eq!(names, ["task_lists", "task_lists_members", "tasks", "task_photos", "notes"]);
                assert_eq!(tables::TASK_LISTS.scope(), Some(Scope::Scope { members: "task_lists_members" }));
                assert_eq!(tables::TASK_LISTS_MEMBERS.scope(), Some(Scope::Membership { scope_table: "task_lists" }));
                assert_eq!(
                    tables::TASK_PHOTOS.scope(),
                    Some(Scope::Follows { through: "task_id", column: "list_id", scope_table: "task_lists", members: "task_lists_members" })
                );
                assert_eq!(tables::NOTES.scope(), None);
                println!("ok");
            }
            """.utf8
        ).write(to: test)
        let binary = scratch.appendingPathComponent("main")
        let build = try ProgramRun.rustc(["--edition", "2021", "-o", binary.path, test.path])
        #expect(build.status == 0 && !build.output.contains("warning"), "rustc:\n\(build.output)")
        let run = try ProgramRun.execute(binary.path, [])
        #expect(run.output == "ok\n", "\(run.output)")
    }
}
