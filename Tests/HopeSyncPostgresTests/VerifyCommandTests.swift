import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncVerify
import Testing

/// `generate-verify` as users run it: the project's schema.yaml and Generated/ against a live
/// database, with the exit codes CI switches on.
@Suite struct VerifyCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func verify(_ url: String, _ more: [String] = []) -> (status: Int32, out: String, error: String) {
        let (console, transcript) = GenerateCommand.Console.recording()
        let status = VerifyCommand(console: console).run(
            ["--database-url", url, "--schema", Self.root.appendingPathComponent("schema.yaml").path] + more)
        return (status, transcript.out, transcript.error)
    }

    @Test func theGeneratedSchemaPassesAndTheForgottenPasteFails() throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try connection.execute(
            script: String(contentsOf: Self.root.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8))
        let passing = verify(database.url)
        #expect(passing.status == 0, "\(passing.out)\(passing.error)")

        try connection.execute(script: "alter table public.sessions drop column note;")
        let failing = verify(database.url)
        #expect(failing.status == 1)
        #expect(failing.out.contains("note"))
        #expect(failing.out.contains("0001_initial"))
        #expect(failing.out.contains("alter table public.sessions add column if not exists note text;"))
    }

    /// The report ends with the devices in the field by the schema version of their build, over
    /// the window `--devices` sets (their hellos' last day).
    @Test func theReportCountsTheDevicesByVersion() throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try connection.execute(
            script: String(contentsOf: Self.root.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8))
        #expect(verify(database.url).out.contains("by their build's schema version:\n  none"))
        try connection.execute(
            script: """
                insert into public.sync_devices (user_id, device_id, schema_version, last_seen) values
                  (gen_random_uuid(), 'a', 16, current_date), (gen_random_uuid(), 'b', 16, current_date - 3),
                  (gen_random_uuid(), 'c', 15, current_date - 1), (gen_random_uuid(), 'd', 9, current_date - 40);
                """)
        let month = verify(database.url)
        #expect(month.status == 0)
        #expect(
            month.out.contains("in the last 30 days, by their build's schema version:\n  version 16: 2 devices\n  version 15: 1 device\n"))
        #expect(!month.out.contains("version 9"))
        #expect(verify(database.url, ["--devices", "2"]).out.contains("version 16: 1 device\n  version 15: 1 device\n"))
        #expect(verify(database.url, ["--devices", "0"]).status == 2)
    }

    /// Each step of the column lifecycle (decision 0052) and of a table rename (0054), its
    /// migrations applied in order:
    /// verify passes, the server's extra names (a rename's old one, a deprecated or retired
    /// column) included.
    @Test(arguments: ["Lifecycle/v1", "Lifecycle/v2", "Lifecycle/v3", "Lifecycle/v4", "TableRename/v1", "TableRename/v2", "TableRename/v3"])
    func eachLifecycleStepVerifies(_ step: String) throws {
        let fixture = Self.root.appendingPathComponent("Tests/Fixtures/\(step)")
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        let folder = fixture.appendingPathComponent("Generated/supabase/migrations")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            try connection.execute(script: String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
        let (console, transcript) = GenerateCommand.Console.recording()
        let status = VerifyCommand(console: console).run([
            "--database-url", database.url, "--schema", fixture.appendingPathComponent("schema.yaml").path,
        ])
        #expect(status == 0, "\(transcript.out)\(transcript.error)")
    }

    /// A renamed table's old name (decision 0054) is a view running as its caller: verify
    /// reports one that is missing or runs as its owner, with the SQL that makes it again.
    @Test func aRenamedTablesOldNameIsChecked() throws {
        let fixture = Self.root.appendingPathComponent("Tests/Fixtures/TableRename/v2")
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try connection.execute(
            script: String(contentsOf: fixture.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8))
        func run() -> (status: Int32, out: String) {
            let (console, transcript) = GenerateCommand.Console.recording()
            let status = VerifyCommand(console: console).run([
                "--database-url", database.url, "--schema", fixture.appendingPathComponent("schema.yaml").path,
            ])
            return (status, transcript.out + transcript.error)
        }
        #expect(run().status == 0)
        try connection.execute("alter view public.habits set (security_invoker = false)")
        let owner = run()
        #expect(owner.status != 0)
        #expect(owner.out.contains("view public.habits runs as its owner"), "\(owner.out)")
        try connection.execute("drop view public.notes")
        let missing = run()
        #expect(missing.out.contains("view public.notes (the old name of memos)"), "\(missing.out)")
        #expect(missing.out.contains("create view public.notes with (security_invoker = true)"), "the fix makes it again")
        // What the rename made under the new name is the rename migration's.
        try connection.execute("drop trigger routines_before_write on public.routines")
        let trigger = run()
        #expect(trigger.out.contains("routines_before_write") && trigger.out.contains("0002_update_routines_memos"), "\(trigger.out)")
    }

    @Test func anUnreachableDatabaseIsExitTwoWithoutThePassword() {
        let result = verify("postgresql://someone:hunter2secret@127.0.0.1:1/nowhere?connect_timeout=2")
        #expect(result.status == 2)
        #expect(!result.error.isEmpty)
        #expect(!(result.error + result.out).contains("hunter2secret"))
    }
}
