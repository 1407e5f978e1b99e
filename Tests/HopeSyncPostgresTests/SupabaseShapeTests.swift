import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// The test databases are no kinder than a Supabase project where the generated SQL could tell:
/// the SQL editor's role (`postgres`) may create, alter and drop policies on Storage's and
/// Realtime's tables, which belong to their services' roles, and do nothing else to them.
@Suite struct SupabaseShapeTests {
    @Test func theSQLEditorsRoleMayOnlyMakePoliciesOnStorageAndRealtime() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.createRealtimeSchema()
        let owners = try connection.execute(
            "select c.oid::regclass::text, pg_get_userbyid(c.relowner) from pg_class c where c.oid in ('storage.objects'::regclass, 'realtime.messages'::regclass) order by 1"
        ).rows.map(\.values)
        #expect(owners == [["realtime.messages", "supabase_realtime_admin"], ["storage.objects", "supabase_storage_admin"]])

        try connection.execute(
            script: """
                create policy mine on storage.objects for select to authenticated using (owner = (select auth.uid()));
                alter policy mine on storage.objects to authenticated, anon;
                drop policy mine on storage.objects;
                create policy mine on realtime.messages for select to authenticated using (true);
                drop policy mine on realtime.messages;
                create function public.nothing() returns trigger language plpgsql set search_path = '' as $$ begin return null; end $$;
                """)
        let refused = [
            "alter table storage.objects add column note text",
            "create index objects_note on storage.objects (name)",
            "comment on table realtime.messages is 'mine'",
            "create trigger mine after insert on realtime.messages for each row execute function public.nothing()",
            "drop table storage.buckets cascade",
            "create table realtime.messages_later partition of realtime.messages for values from ('2100-01-01') to ('2100-01-02')",
        ]
        for statement in refused {
            let error = #expect(throws: PostgresError.self, "\(statement)") { try connection.execute(statement) }
            #expect(
                error?.sqlState == "42501" && error?.message.contains("may only create, alter and drop policies") == true,
                "\(statement): \(String(describing: error))")
        }
        #expect(try connection.execute("select to_regclass('storage.buckets') is not null").scalar == "t")
    }

    /// Realtime's own day partitions, yesterday to three days ahead, and no default one.
    @Test func realtimeMessagesArePartitionedByDayWithoutADefault() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.createRealtimeSchema()
        let partitions = try connection.execute(
            """
            select c.relname, pg_get_expr(c.relpartbound, c.oid) from pg_inherits i join pg_class c on c.oid = i.inhrelid
            where i.inhparent = 'realtime.messages'::regclass order by 1
            """
        ).rows.map(\.values)
        let expected = try connection.execute(
            """
            select 'messages_' || to_char(d, 'YYYY_MM_DD') from generate_series(current_date - 1, current_date + 3, interval '1 day') d order by 1
            """
        ).rows.map { $0[0] }
        #expect(partitions.map { $0[0] } == expected)
        #expect(!partitions.contains { $0[1] == "DEFAULT" })
    }
}
