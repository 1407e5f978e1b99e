import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncVerify
import Testing

@Suite struct VerifyTests {
    let verifier = SchemaVerifier(renderer: TestSchema.renderer)

    /// A database migrated to the current schema.
    private func migrated() throws -> (TestDatabase, Connection) {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        for migration in TestSchema.migrations {
            try connection.execute(script: try TestSchema.renderer.migrationSQL(migration))
        }
        return (database, connection)
    }

    private func verify(_ database: TestDatabase) throws -> VerificationReport {
        try verifier.verify(TestSchema.current, migrations: TestSchema.migrations, databaseURL: database.url)
    }

    @Test func aFreshlyMigratedDatabasePasses() throws {
        let (database, _) = try migrated()
        let report = try verify(database)
        #expect(report.findings == [])
        #expect(report.isComplete)
        #expect(report.description.contains("sessions: ok"))
        #expect(verifier.outcome(TestSchema.current, migrations: TestSchema.migrations, databaseURL: database.url).status == 0)
    }

    @Test func theForgottenPasteIsReportedWithTheMigrationToApply() throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try connection.execute(script: try TestSchema.renderer.migrationSQL(TestSchema.initialMigration))
        let report = try verify(database)
        #expect(!report.isComplete)
        let column = try #require(report.findings.first { $0.kind == .column })
        #expect(column.table == "sessions")
        #expect(column.message == "column tag (text)")
        #expect(column.migration == "0002_sessions_add_tag")
        #expect(column.fix == #"alter table public.sessions add column if not exists tag text not null default 'it''s "new"';"#)
        let index = try #require(report.findings.first { $0.kind == .index })
        #expect(index.migration == "0002_sessions_add_tag")
        // sessions merges column by column: its write trigger must learn the new column too.
        let function = try #require(report.findings.first { $0.kind == .function })
        #expect(function.table == "sessions")
        #expect(function.migration == "0002_sessions_add_tag")
        #expect(function.fix?.contains("s_tag") == true)
        #expect(report.findings.count == 3)

        // The fixes it names work.
        try connection.execute(script: column.fix! + "\n" + index.fix! + "\n" + function.fix!)
        #expect(try verify(database).isComplete)
        #expect(try verify(database).findings == [])
    }

    @Test func aDroppedTriggerPolicyAndDisabledSecurityAreEachReported() throws {
        let (database, connection) = try migrated()
        try connection.execute(
            script: """
                drop trigger sessions_after_write on public.sessions;
                drop policy tasks_update_own on public.tasks;
                alter table public.task_lists disable row level security;
                alter table public.activities add column legacy text;
                alter table public.tasks disable trigger tasks_updated_at;
                revoke delete on public.activities from service_role;
                """)
        let report = try verify(database)
        #expect(!report.isComplete)
        #expect(verifier.outcome(TestSchema.current, migrations: TestSchema.migrations, databaseURL: database.url).status == 1)
        let kinds = report.findings.map { "\($0.table ?? "-") \($0.kind.rawValue)" }.sorted()
        #expect(
            kinds == [
                "activities extraColumn", "activities grant", "sessions trigger", "task_lists rowLevelSecurity", "tasks policy",
                "tasks trigger",
            ])
        #expect(report.findings.contains { $0.kind == .grant && $0.message == "delete for service_role" })
        for finding in report.findings where !finding.isNote {
            // The tag migration re-created sessions' triggers last.
            #expect(finding.migration == (finding.table == "sessions" ? "0002_sessions_add_tag" : "0001_initial"))
            #expect(finding.fix?.isEmpty == false)
        }
        // Each fix, applied, repairs what it names.
        for finding in report.findings where !finding.isNote {
            try connection.execute(script: finding.fix!)
        }
        let repaired = try verify(database)
        #expect(repaired.isComplete)
        #expect(repaired.findings.map(\.kind) == [.extraColumn])
    }

    /// A writer floor set in schema.yaml but never pasted leaves the server's check and hello
    /// outdated, and a dropped check on one table is missing: each is reported, and the fix
    /// (what every table shares, rendered with the floor) repairs both.
    @Test func anUnpastedWriterFloorAndADroppedCheckAreReported() throws {
        let (database, connection) = try migrated()
        try connection.execute("drop trigger activities_check_writer on public.activities")
        var floored = TestSchema.current
        floored.oldestWriter = 2
        let report = try verifier.verify(floored, migrations: TestSchema.migrations, databaseURL: database.url)
        let messages = report.findings.map(\.message).sorted()
        #expect(
            messages == [
                "function public.sync_check_writer (outdated)", "function public.sync_hello (outdated)",
                "trigger activities_check_writer on public.activities",
            ])
        let fix = try #require(report.findings.first?.fix)
        try connection.execute(script: fix)
        #expect(try verifier.verify(floored, migrations: TestSchema.migrations, databaseURL: database.url).findings == [])
    }

    /// A policy with the right name that lets everyone's rows through is reported, with the SQL
    /// that puts the owner-only one back; another permissive policy is a note to look at.
    @Test func aWeakenedPolicyIsReportedAndAnExtraOneNoted() throws {
        let (database, connection) = try migrated()
        try connection.execute(
            script: """
                drop policy sessions_select_own on public.sessions;
                create policy sessions_select_own on public.sessions for select to authenticated using (true);
                create policy tasks_shared on public.tasks for select to authenticated using (done);
                """)
        let report = try verify(database)
        #expect(!report.isComplete)
        let weakened = try #require(report.findings.first { $0.kind == .policy })
        #expect(weakened.table == "sessions")
        #expect(weakened.message == "policy sessions_select_own is not the owner-only policy (it has using true)")
        #expect(weakened.migration == "0001_initial")
        let extra = try #require(report.findings.first { $0.kind == .extraPolicy })
        #expect(extra.isNote && extra.table == "tasks" && extra.message.hasPrefix("extra permissive policy tasks_shared"))
        #expect(report.findings.count == 2)

        try connection.execute(script: weakened.fix!)
        let repaired = try verify(database)
        #expect(repaired.isComplete)
        #expect(repaired.findings.map(\.kind) == [.extraPolicy])
    }

    @Test func anOutdatedTriggerFunctionIsReported() throws {
        let (database, connection) = try migrated()
        try connection.execute(
            script: """
                create or replace function public.activities_before_write() returns trigger language plpgsql
                set search_path = '' as $$ begin return new; end $$;
                """)
        let report = try verify(database)
        let finding = try #require(report.findings.first)
        #expect(report.findings.count == 1)
        #expect(finding.kind == .function)
        #expect(finding.table == "activities")
        try connection.execute(script: finding.fix!)
        #expect(try verify(database).findings == [])
    }

    /// A function open to a role the generated SQL keeps from it (a security definer trigger
    /// function anon may call, as Supabase's default privileges leave it) is reported as
    /// exposed, and the fix closes it again; one the SQL grants that a role lost is missing.
    @Test func aFunctionExecutableByARoleItShouldNotBeIsReported() throws {
        let (database, connection) = try migrated()
        try connection.execute(
            script: """
                grant execute on function public.sync_written_owners() to anon, authenticated;
                grant execute on function public.activities_before_write() to public;
                revoke execute on function public.sync_pull(jsonb, bigint, integer) from authenticated;
                """)
        let report = try verify(database)
        let messages = report.findings.map(\.message)
        #expect(messages.contains("function public.sync_written_owners may be executed by anon, authenticated; no API role should"))
        #expect(
            messages.contains(
                "function public.activities_before_write may be executed by anon, authenticated, service_role; no API role should"))
        #expect(messages.contains("execute on function public.sync_pull for authenticated"))
        #expect(report.findings.filter { $0.kind == .exposedFunction }.count == 2)
        #expect(!report.isComplete)
        #expect(report.description.contains("  exposed: function public.sync_written_owners may be executed by anon, authenticated"))
        for fix in Set(report.findings.compactMap(\.fix)) { try connection.execute(script: fix) }
        #expect(try verify(database).findings == [])
    }

    @Test func aMissingTableAndSequenceAreReported() throws {
        let database = try PostgresCluster.createDatabase()
        let report = try verify(database)
        #expect(report.findings.map(\.kind) == [.sequence, .table, .table, .table, .table])
        #expect(report.findings.allSatisfy { $0.migration == "0001_initial" })
    }

    @Test func aColumnOfTheWrongTypeIsReported() throws {
        let (database, connection) = try migrated()
        try connection.execute("alter table public.tasks alter column done type text")
        let finding = try #require(try verify(database).findings.first)
        #expect(finding.kind == .columnType)
        #expect(finding.message == "column done is text, expected boolean")
    }

    @Test func theReportNamesEveryProblemAndItsFix() throws {
        let (database, connection) = try migrated()
        try connection.execute("drop index public.sessions_started_ms_idx")
        let text = try verify(database).description
        #expect(
            text.contains(
                "sessions:\n  missing: index sessions_started_ms_idx\n    fix: apply migration 0001_initial, or run:\n      create index if not exists sessions_started_ms_idx on public.sessions (started_ms);"
            ))
        #expect(text.contains("activities: ok"))
        #expect(text.hasSuffix("1 missing: the database does not match schema.yaml."))
    }

    @Test func aDatabaseThatCannotBeReachedThrowsWithoutThePassword() throws {
        let cluster = try PostgresCluster.cluster()
        let url = "postgresql://postgres:hunter2-secret@127.0.0.1:\(cluster.port)/no_such_db"
        let error = try #require(throws: PostgresError.self) {
            try verifier.verify(TestSchema.current, migrations: TestSchema.migrations, databaseURL: url)
        }
        #expect(!"\(error)".contains("hunter2-secret"))
        let outcome = verifier.outcome(TestSchema.current, migrations: TestSchema.migrations, databaseURL: url)
        #expect(outcome.status == 2)
        #expect(outcome.text.contains("no_such_db"))
        #expect(!outcome.text.contains("hunter2-secret"))
        // Nothing listens there: the reason is the refused connection, still without the password.
        let closed = verifier.outcome(TestSchema.current, migrations: [], databaseURL: "postgresql://app:hunter2-secret@127.0.0.1:1/app")
        #expect(closed.status == 2)
        #expect(!closed.text.contains("hunter2-secret"))
    }
}
