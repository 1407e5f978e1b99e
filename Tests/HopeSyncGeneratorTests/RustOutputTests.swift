import Foundation
import HopeSyncTestSupport
import Testing

/// The generated Rust needs no crates: rustc compiles it alone, and a small Rust test reads it.
@Suite struct RustOutputTests {
    @Test func generatedRustCompilesAndDescribesTheTables() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hope-rust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let tables = packageRoot.appendingPathComponent("Generated/rust/tables.rs")

        let library = try ProgramRun.rustc(["--edition", "2021", "--crate-type", "lib", "--out-dir", scratch.path, tables.path])
        #expect(library.status == 0, "rustc failed:\n\(library.output)")
        #expect(!library.output.contains("warning"), "rustc warned:\n\(library.output)")

        let test = scratch.appendingPathComponent("reads_tables.rs")
        try Data(
            """
            #[path = "\(tables.path)"]
            mod tables;

            fn main() {
                let names: Vec<&str> = tables::TABLES.iter().map(|t| t.name).collect();
                assert_eq!(names, ["activities", "sessions", "tasks", "task_lists", "task_lists_members", "task_photos"]);
                let sessions = tables::SESSIONS;
                assert_eq!(
                    sessions.conflict,
                    tables::ConflictMode::LastWriterWinsByColumn {
                        stamped: &["activity_id", "started_ms", "ended_ms", "note", "source", "deleted_ms"]
                    }
                );
                assert_eq!(sessions.open_row_rule, Some(("started_ms", "ended_ms")));
                let columns: Vec<&str> = sessions.column_names().collect();
                assert_eq!(columns.first(), Some(&"id"));
                assert_eq!(columns.last(), Some(&"server_seq"));
                assert!(columns.contains(&"ended_ms"));
                assert_eq!(tables::TASKS.conflict, tables::ConflictMode::Version { column: "updated_at" });
                assert_eq!(tables::TASK_LISTS.conflict, tables::ConflictMode::Version { column: "version" });
                let photo = tables::TASK_PHOTOS.files[0];
                assert_eq!((photo.column, photo.bucket, photo.download), ("photo", "task-photos", tables::Download::Eager));
                assert!(tables::SESSIONS.files.is_empty());
                assert!(tables::SESSIONS.scope().is_none());
                assert!(matches!(
                    tables::TASKS.scope(),
                    Some(tables::Scope::Scoped { column: "list_id", scope_table: "task_lists", .. })
                ));
                assert_eq!(tables::MIGRATIONS[0].version, 1);
                assert!(tables::MIGRATIONS[0].sql.contains("CREATE TABLE sessions ("));
                println!("ok {}", names.len());
            }
            """.utf8
        ).write(to: test)
        let binary = scratch.appendingPathComponent("reads_tables")
        let build = try ProgramRun.rustc(["--edition", "2021", "-o", binary.path, test.path])
        #expect(build.status == 0, "rustc failed:\n\(build.output)")
        let run = try ProgramRun.execute(binary.path, [])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output == "ok 6\n")
    }

    /// Every reference's Rust compiles without a warning, and its embedded migrations are the
    /// shipped files byte for byte (text with a carriage return, a bidirectional override or
    /// `"#` in it included).
    @Test(arguments: ReferenceTests.cases)
    func referenceRustCompilesAndEmbedsTheMigrationsExactly(_ name: String) throws {
        try Self.compileAndCompareMigrations(ReferenceTests.root.appendingPathComponent(name).appendingPathComponent("expected"))
    }

    /// Compiles `expected`/rust/tables.rs into a program that compares each embedded migration
    /// with `expected`/sqlite, and runs it.
    static func compileAndCompareMigrations(_ expected: URL) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hope-rust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let migrations = try FileManager.default.contentsOfDirectory(atPath: expected.appendingPathComponent("sqlite").path).sorted()
        let checks = migrations.enumerated().map { index, file in
            "    assert!(tables::MIGRATIONS[\(index)].sql == include_str!(\"\(expected.path)/sqlite/\(file)\"), \"\(file)\");"
        }
        let test = scratch.appendingPathComponent("main.rs")
        try Data(
            """
            #[path = "\(expected.path)/rust/tables.rs"]
            #[allow(dead_code)]
            mod tables;

            fn main() {
                assert_eq!(tables::MIGRATIONS.len(), \(migrations.count));
            \(checks.joined(separator: "\n"))
                println!("ok");
            }
            """.utf8
        ).write(to: test)
        let build = try ProgramRun.rustc(["--edition", "2021", "-o", scratch.appendingPathComponent("main").path, test.path])
        #expect(build.status == 0, "rustc failed:\n\(build.output)")
        #expect(!build.output.contains("warning"), "rustc warned:\n\(build.output)")
        let run = try ProgramRun.execute(scratch.appendingPathComponent("main").path, [])
        #expect(run.output == "ok\n", "\(run.output)")
    }

    /// Tables named `tables` and `migrations` keep the list constants; version columns are
    /// nullable as the SQLite columns are.
    @Test func hardNamesKeepTheListConstantsAndTheDeviceNullability() throws {
        let rust = try String(contentsOf: ReferenceTests.root.appendingPathComponent("hard_names/expected/rust/tables.rs"), encoding: .utf8)
        #expect(rust.contains("pub const TABLES_TABLE: Table = Table {\n    name: \"tables\","))
        #expect(rust.contains("pub const MIGRATIONS_TABLE: Table = Table {\n    name: \"migrations\","))
        #expect(
            rust.contains(
                "pub const TABLES: &[Table] = &[PROBES, SELVES, LOCAL_MIGRATIONS, OPEN_ROW_RULES, TABLES_TABLE, MIGRATIONS_TABLE];"))
        #expect(rust.contains("Column { name: \"updated_at\", sqlite_type: \"TEXT\", nullable: true }"))
        #expect(rust.contains("Column { name: \"version\", sqlite_type: \"INTEGER\", nullable: true }"))
    }
}
