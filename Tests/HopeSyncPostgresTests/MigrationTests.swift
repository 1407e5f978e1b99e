import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import Testing

@Suite struct MigrationTests {
    let renderer = TestSchema.renderer

    private func apply(_ migrations: [Migration], to connection: Connection) throws {
        for migration in migrations {
            try connection.execute(script: try renderer.migrationSQL(migration))
        }
    }

    @Test func migrationsInOrderAndSchemaSQLMakeTheSameCatalog() throws {
        let migrated = try PostgresCluster.createDatabase().connect()
        try apply(TestSchema.migrations, to: migrated)
        let pasted = try PostgresCluster.createDatabase().connect()
        try pasted.execute(script: try renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder))

        let expected = try Catalog.dump(pasted)
        #expect(try Catalog.dump(migrated) == expected)
        // The dump is not empty: each kind of object is there to compare.
        for kind in ["table", "column", "constraint", "index", "trigger", "function", "policy", "grant"] {
            #expect(expected.contains { $0.hasPrefix(kind + ": ") }, "no \(kind) in the catalog")
        }
        #expect(expected.contains { $0.hasPrefix("column: sessions | tag | text | true | 'it''s \"new\"'::text") })
    }

    @Test func theNewMigrationUpgradesADatabaseHoldingRows() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        try apply([TestSchema.initialMigration], to: connection)
        let user = UUID()
        let ids = (0..<3).map { _ in UUID() }
        try connection.request(asUser: user) { connection in
            try ServerDatabase.upsert(
                "sessions",
                ids.enumerated().map { index, id in
                    session(id, user: user, start: index * 10, end: index * 10 + 5, updatedMs: 1)
                }, on: connection)
        }
        let before = try connection.execute("select id, started_ms, server_seq from public.sessions order by id").rows

        try apply([TestSchema.tagMigration], to: connection)

        let after = try connection.execute("select id, started_ms, server_seq, tag from public.sessions order by id").rows
        #expect(after.map { [$0[0], $0[1], $0[2]] } == before.map { [$0[0], $0[1], $0[2]] })
        #expect(after.allSatisfy { $0["tag"] == #"it's "new""# })

        // And a database built from the new schema alone has the same catalog.
        let fresh = try PostgresCluster.createDatabase().connect()
        try fresh.execute(script: try renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder))
        #expect(try Catalog.dump(connection) == Catalog.dump(fresh))
    }

    @Test func schemaSQLUpgradesADatabaseMadeByAnOlderSchemaSQL() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.execute(script: try renderer.schemaSQL(TestSchema.initial, columnOrder: TestSchema.columnOrder))
        let user = UUID()
        try connection.request(asUser: user) { connection in
            try ServerDatabase.upsert("sessions", [session(UUID(), user: user, start: 1, updatedMs: 1)], on: connection)
        }
        try connection.execute(script: try renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder))
        #expect(try connection.execute("select count(*) from public.sessions where tag is not null").scalar == "1")
    }

    @Test func replacedTriggersMatchSchemaSQLWhetherMigratedOrPastedOver() throws {
        let migrated = try PostgresCluster.createDatabase().connect()
        try apply(TestSchema.migrations + [TestSchema.relaxMigration], to: migrated)
        let pastedOver = try PostgresCluster.createDatabase().connect()
        try pastedOver.execute(script: try renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder))
        try pastedOver.execute(script: try renderer.schemaSQL(TestSchema.relaxed, columnOrder: TestSchema.columnOrder))
        let fresh = try PostgresCluster.createDatabase().connect()
        try fresh.execute(script: try renderer.schemaSQL(TestSchema.relaxed, columnOrder: TestSchema.columnOrder))

        let expected = try Catalog.dump(fresh)
        #expect(try Catalog.dump(migrated) == expected)
        #expect(try Catalog.dump(pastedOver) == expected)
        #expect(!expected.contains { $0.hasPrefix("trigger: activities | activities_lock_owner") })
        #expect(!expected.contains { $0.hasPrefix("trigger: sessions | sessions_after_write") })
        #expect(expected.contains { $0.hasPrefix("trigger: sessions | sessions_lock_owner") })
    }

    @Test func migrationFilesAreDeterministicAndNamed() throws {
        let first = try renderer.migrationSQL(TestSchema.tagMigration)
        #expect(first == (try renderer.migrationSQL(TestSchema.tagMigration)))
        #expect(first.hasPrefix("-- Migration 2: sessions_add_tag\n"))
        // Re-created triggers may call a shared function that is new: the migration makes what
        // tables share first. A migration that only adds an index does not.
        #expect(first.contains("create or replace function public.sync_poke_users("))
        let indexOnly = Migration(
            number: 3, name: "sessions_add_index_tag", changes: [.addIndex(TestSchema.tagIndex, on: TestSchema.sessionsWithTag)],
            schema: TestSchema.current)
        #expect(!(try renderer.migrationSQL(indexOnly)).contains("create sequence"))
        #expect(try renderer.migrationSQL(TestSchema.initialMigration).contains("create sequence if not exists public.sync_server_seq;"))
    }

    @Test func everyFunctionHasAnEmptySearchPath() throws {
        let connection = try ServerDatabase.make().connection
        let functions = try connection.execute(
            """
            select proname, coalesce(array_to_string(proconfig, ','), '') from pg_proc
            where pronamespace = 'public'::regnamespace order by 1
            """
        ).rows
        #expect(
            functions.map { $0[0] } == [
                "activities_before_write", "sessions_after_write", "sessions_before_write", "sync_check_writer", "sync_hello",
                "sync_lock_owner", "sync_mark_users", "sync_mark_written", "sync_poke_users", "sync_poke_written", "sync_pull",
                "sync_request_schema", "sync_scope_role", "sync_wait_for_owner",
                "sync_wait_for_scope", "sync_written_owners", "task_lists_before_write", "task_lists_creator_owner", "task_lists_deleted",
                "task_lists_members_access", "task_lists_members_before_write", "task_lists_members_written",
                "task_lists_written_streams", "tasks_before_write", "tasks_moved", "tasks_written_streams",
            ])
        for function in functions {
            #expect(function[1] == "search_path=\"\"", "\(function[0] ?? "")")
        }
    }
}
