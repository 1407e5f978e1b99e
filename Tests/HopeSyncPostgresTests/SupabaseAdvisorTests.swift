import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// The generated SQL, applied to a Supabase-shaped database (Realtime's and Storage's schemas
/// included), leaves Supabase's database advisors nothing to say about the project's objects:
/// the rules of ``SupabaseAdvisors``, whether the project was made by schema.sql or by its
/// migrations in order.
@Suite struct SupabaseAdvisorTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// A renamed table's old name is a view (decision 0054): the advisors flag one that runs as
    /// its owner.
    static let folders = [
        "Generated", "Tests/Fixtures/HabitApp/Generated", "Tests/Fixtures/Upgrade/v2/Generated", "Tests/Fixtures/TableRename/v2/Generated",
        "Tests/Fixtures/TableRename/v3/Generated", "Tests/Fixtures/Lifecycle/v4/Generated",
    ]

    @Test(arguments: folders)
    func schemaSQLLeavesTheAdvisorsNothingToSay(_ folder: String) throws {
        let connection = try Self.supabaseShaped()
        try connection.execute(script: try Self.read(folder, "supabase/schema.sql"))
        let found = try SupabaseAdvisors.findings(on: connection)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test(arguments: folders)
    func theMigrationsLeaveTheAdvisorsNothingToSay(_ folder: String) throws {
        let connection = try Self.supabaseShaped()
        let directory = Self.packageRoot.appendingPathComponent(folder).appendingPathComponent("supabase/migrations")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(!names.isEmpty)
        for name in names { try connection.execute(script: try Self.read(folder, "supabase/migrations/" + name)) }
        let found = try SupabaseAdvisors.findings(on: connection)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// The rules find what they describe: each of these objects breaks one.
    @Test func theRulesFindWhatTheyDescribe() throws {
        let connection = try Self.supabaseShaped()
        try connection.execute(script: try Self.read("Generated", "supabase/schema.sql"))
        try connection.execute(
            script: """
                create function public.definer() returns int language sql security definer set search_path = '' as $$ select 1 $$;
                create function public.loose() returns int language sql as $$ select 1 $$;
                create schema unexposed;
                create function unexposed.definer() returns int language sql security definer set search_path = '' as $$ select 1 $$;
                revoke all on function unexposed.definer() from public;
                grant execute on function unexposed.definer() to authenticated;
                revoke all on function public.loose() from public, anon, authenticated;
                create table public.open (id int);
                create table public.parent (id int primary key);
                create table public.child (id int primary key, parent int references public.parent (id));
                alter table public.parent enable row level security;
                alter table public.child enable row level security;
                create policy row_by_row on public.child for select to authenticated using (parent = (auth.uid() is not null)::int);
                create policy also on public.child for select to authenticated using (true);
                create index twin_a on public.activities (user_id, server_seq);
                create view public.everything as select * from public.activities;
                """)
        let found = try SupabaseAdvisors.findings(on: connection)
        let expected = [
            "security_definer_function_executable: definer() by anon",
            "security_definer_function_executable: definer() by authenticated",
            "security_definer_function_executable: unexposed.definer() by authenticated",
            "function_search_path_mutable: loose()",
            "rls_disabled_in_public: open",
            "rls_enabled_no_policy: parent",
            "no_primary_key: open",
            "auth_rls_initplan: public.child row_by_row",
            "multiple_permissive_policies: child authenticated select: also, row_by_row",
            "unindexed_foreign_keys: child child_parent_fkey",
            "security_definer_view: everything",
        ]
        for finding in expected { #expect(found.contains(finding), "\(found)") }
        #expect(!found.contains("security_definer_function_executable: unexposed.definer() by anon"), "\(found)")
        #expect(found.contains { $0.hasPrefix("duplicate_index: public.activities: ") && $0.contains("twin_a") }, "\(found)")
    }

    static func supabaseShaped() throws -> Connection {
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.createRealtimeSchema()
        return connection
    }

    static func read(_ folder: String, _ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(folder).appendingPathComponent(path), encoding: .utf8)
    }
}
