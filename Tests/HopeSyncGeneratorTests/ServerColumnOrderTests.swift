import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// A table's server columns are in the order its migrations made them, whatever order
/// schema.yaml lists them in; schema.sql creates them so, and the snapshot records it.
@Suite struct ServerColumnOrderTests {
    static let project = [
        "id", "user_id", "name", "color", "archived", "sort_order", "metadata", "updated_ms", "deleted_ms", "device_id", "server_seq",
        "column_stamps",
    ]

    @Test func theProjectsStampsComeAfterServerSeqAsMigration0002AddedThem() throws {
        let snapshot = try Snapshot.decode(
            String(contentsOf: packageRoot.appendingPathComponent("Generated/\(Snapshot.fileName)"), encoding: .utf8))
        let activities = try #require(snapshot.schema.table(named: "activities"))
        let tasks = try #require(snapshot.schema.table(named: "tasks"))
        // Worked out from the record of changes (as for a snapshot that predates the recorded
        // order), and as the snapshot records it.
        let derived = ServerColumnOrder(recorded: nil, snapshot.migrations, in: snapshot.schema)
        #expect(derived.columns(of: activities).map(\.name) == Self.project)
        // tasks.list_id came with migration 0010 (task lists shared), updated_by with 0013: last on
        // the server, in that order.
        let later = ["list_id", "updated_by"]
        #expect(derived.columns(of: tasks).map(\.name) == tasks.syncedColumns.map(\.name).filter { !later.contains($0) } + later)
        #expect(snapshot.serverColumns?["activities"] == Self.project)
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
        #expect(sql.contains("  column_stamps jsonb,\n  server_seq bigint,\n  c bigint not null default 1\n);"))
        #expect(second.snapshot.serverColumns?["things"]?.suffix(3) == ["column_stamps", "server_seq", "c"])
        // A table made in one run holds its columns in schema order.
        #expect(try #require(first.tree["supabase/schema.sql"]).contains("  b text,\n  updated_ms bigint not null,"))
    }

    /// The server's order is history: moving a shipped column in schema.yaml moves it in the
    /// row types, not in schema.sql, which must still end where the migrations end.
    @Test func aShippedColumnMovedInSchemaYamlKeepsItsPlaceOnTheServer() throws {
        let first = try generate(
            """
            tables:
              things:
                columns:
                  a: text?
                  b: text?
            """)
        let moved = try generate(
            """
            tables:
              things:
                columns:
                  b: text?
                  a: text?
            """, existing: first.tree)
        let sql = try #require(moved.tree["supabase/schema.sql"])
        #expect(sql.contains("  a text,\n  b text,\n  updated_ms bigint not null,"))
        #expect(moved.snapshot.serverColumns?["things"] == first.snapshot.serverColumns?["things"])
    }

    /// schema.sql adds every column a table lacks (a paste over an older database, or over one
    /// that lost a column), in server order.
    @Test func schemaSQLAddsEveryColumnButTheKeyInServerOrder() throws {
        let output = try generate(
            """
            tables:
              things:
                columns:
                  a: text?
            """)
        let sql = try #require(output.tree["supabase/schema.sql"])
        let added = sql.split(separator: "\n").filter { $0.hasPrefix("alter table public.things add column if not exists ") }
            .map { $0.dropFirst("alter table public.things add column if not exists ".count).prefix { $0 != " " } }
        #expect(added.map(String.init) == Array(try #require(output.snapshot.serverColumns?["things"]).dropFirst()))
    }
}
