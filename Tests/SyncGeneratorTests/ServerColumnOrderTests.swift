import Foundation
import SyncGenerator
import SyncSchema
import Testing

/// A table's server columns are in the order its migrations made them, whatever order
/// schema.yaml lists them in; schema.sql creates them so and adds only the later ones.
@Suite struct ServerColumnOrderTests {
    @Test func theProjectsStampsComeAfterServerSeqAsMigration0002AddedThem() throws {
        let snapshot = try Snapshot.decode(
            String(contentsOf: packageRoot.appendingPathComponent("Generated/\(Snapshot.fileName)"), encoding: .utf8))
        let order = ServerColumnOrder(snapshot.migrations, in: snapshot.schema)
        let activities = try #require(snapshot.schema.table(named: "activities"))
        #expect(
            order.columns(of: activities).map(\.name) == [
                "id", "user_id", "name", "color", "archived", "sort_order", "metadata", "updated_ms", "deleted_ms", "device_id",
                "server_seq", "column_stamps",
            ])
        #expect(order.added(to: activities).map(\.name) == ["column_stamps"])
        let tasks = try #require(snapshot.schema.table(named: "tasks"))
        #expect(order.columns(of: tasks).map(\.name) == tasks.syncedColumns.map(\.name))
        #expect(order.added(to: tasks).isEmpty)
    }

    @Test func aColumnAddedInThisRunComesLastWhereverSchemaYamlPutsIt() throws {
        let first = try generate(
            """
            tables:
              things:
                columns:
                  a: text?
                  b: text?
            """)
        let second = try generate(
            """
            tables:
              things:
                columns:
                  a: text?
                  c: { type: int, default: 1 }
                  b: text?
            """, existing: first.tree)
        let sql = try #require(second.tree["supabase/schema.sql"])
        #expect(
            sql.contains(
                """
                  column_stamps jsonb,
                  server_seq bigint,
                  c bigint not null default 1
                );
                alter table public.things add column if not exists c bigint not null default 1;
                create index
                """))
        #expect(sql.components(separatedBy: "add column").count == 2)
        // A table made in one run holds its columns in schema order, and adds none.
        let firstSQL = try #require(first.tree["supabase/schema.sql"])
        #expect(firstSQL.contains("  b text,\n  updated_ms bigint not null,"))
        #expect(!firstSQL.contains("add column"))
    }
}
