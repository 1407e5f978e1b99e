import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncVerify
import Testing

/// `verify` expects what the templates render, not what the built-in ones would: a project
/// whose own templates rename a policy and a trigger, write a policy's condition another way
/// and grant clients no update verifies clean against a database made from them, and still shows drift.
@Suite struct VerifyOverrideTests {
    /// A custom template set beside a scratch project, removed when the test ends.
    final class CustomTemplates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hope-sync-templates-\(UUID().uuidString)")
        let renderer: SupabaseRenderer

        init() throws {
            try Self.write(directory, "supabase/access.sql.mustache") { source in
                source.replacingOccurrences(of: "_select_own", with: "_owner_reads")
                    .replacingOccurrences(of: "(select auth.uid())", with: "auth.uid()")
                    .replacingOccurrences(
                        of: "grant select, insert, update on table public.{{table}} to authenticated;",
                        with: "grant select, insert on table public.{{table}} to authenticated;")
            }
            try Self.write(directory, "supabase/triggers.sql.mustache") { source in
                source.replacingOccurrences(
                    of: "create or replace trigger {{table}}_before_write", with: "create or replace trigger {{table}}_settle_write")
            }
            renderer = SupabaseRenderer(templates: try TemplateSet(directory: directory))
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        private static func write(_ directory: URL, _ name: String, _ edit: (String) -> String) throws {
            let url = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let source = try TemplateSet.builtInSource(named: name)
            let edited = edit(source)
            #expect(edited != source, "the override of \(name) changes nothing")
            try Data(edited.utf8).write(to: url)
        }
    }

    @Test func aDatabaseMadeFromOverriddenTemplatesVerifiesCleanAndStillShowsDrift() throws {
        let custom = try CustomTemplates()
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try connection.execute(script: try custom.renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder))
        let verifier = SchemaVerifier(renderer: custom.renderer)
        func verify() throws -> VerificationReport {
            try verifier.verify(TestSchema.current, migrations: TestSchema.migrations, databaseURL: database.url)
        }
        #expect(try verify().findings == [])

        // The built-in templates' expectations would be false findings here.
        let builtIn = try SchemaVerifier(renderer: TestSchema.renderer)
            .verify(TestSchema.current, migrations: TestSchema.migrations, databaseURL: database.url)
        #expect(builtIn.findings.contains { $0.message == "policy sessions_select_own" })
        #expect(builtIn.findings.contains { $0.message == "trigger sessions_before_write" })
        #expect(builtIn.findings.contains { $0.message == "update for authenticated" })

        try connection.execute(
            script: """
                drop policy sessions_owner_reads on public.sessions;
                alter table public.tasks disable trigger tasks_settle_write;
                drop policy tasks_insert_own on public.tasks;
                create policy tasks_insert_own on public.tasks for insert to authenticated with check (true);
                """)
        let drift = try verify()
        #expect(
            drift.findings.map(\.message) == [
                "policy sessions_owner_reads",
                "trigger tasks_settle_write (disabled)",
                "policy tasks_insert_own is not the owner-only policy (it has with check true)",
            ])
        for finding in drift.findings {
            try connection.execute(script: finding.fix!)
        }
        #expect(try verify().findings == [])
    }

    /// A trigger of the right name that fires at another time, or runs another function, is
    /// not the trigger the templates make.
    @Test func aTriggerOfTheRightNameDoingSomethingElseIsReported() throws {
        let connection = try ServerDatabase.make().connection
        try connection.execute(
            script: """
                drop trigger activities_before_write on public.activities;
                create trigger activities_before_write after insert on public.activities
                  for each row execute function public.activities_before_write();
                """)
        let report = try SchemaVerifier(renderer: TestSchema.renderer)
            .verify(TestSchema.current, migrations: TestSchema.migrations, connection: connection)
        #expect(
            report.findings.map(\.message) == [
                "trigger activities_before_write is after insert for each row execute public.activities_before_write, "
                    + "expected before insert or update for each row execute public.activities_before_write"
            ])
        try connection.execute(script: report.findings[0].fix!)
        #expect(
            try SchemaVerifier(renderer: TestSchema.renderer)
                .verify(TestSchema.current, migrations: TestSchema.migrations, connection: connection).findings == [])
    }
}
