import Foundation
import SyncGenerator
import Testing

/// A server that already ran migration 1 keeps its trigger functions until a migration replaces
/// them: when the templates (an edited one, or a newer hope-sync's) render a table's functions
/// differently, `generate` must add that migration rather than only change schema.sql.
@Suite struct ServerCodeTests {
    @Test func changedTriggerCodeBecomesAMigrationOfItsOwn() throws {
        let project = try ScratchProject()
        try project.writeSchema(ColumnAddTests.before)
        #expect(project.run().status == 0)
        let first = try project.generatedTree()

        let templates = project.root.appendingPathComponent("Templates")
        #expect(project.run("--init-templates", templates.path).status == 0)
        let triggers = templates.appendingPathComponent("supabase/triggers.sql.mustache")
        try Data(("-- Our audit hook goes here.\n" + String(contentsOf: triggers, encoding: .utf8)).utf8).write(to: triggers)

        let check = project.run("--check")
        #expect(check.status == 1)
        #expect(check.out.contains("pending migration: 0002_sessions_update_triggers"))
        #expect(project.run().status == 0)
        let second = try project.generatedTree()
        let added = Set(second.files.keys).subtracting(first.files.keys)
        // Both runs read the same fixed clock: the new stamp is one second after the shipped one.
        #expect(
            added == ["sqlite/0002_sessions_update_triggers.sql", "supabase/migrations/20261130090001_0002_sessions_update_triggers.sql"])
        let migration = try #require(second["supabase/migrations/20261130090001_0002_sessions_update_triggers.sql"])
        #expect(migration.contains("-- Our audit hook goes here."))
        #expect(migration.contains("create or replace function public.sessions_before_write()"))
        // What the tables share comes along (sync_marks among it); no synced table is created.
        #expect(!migration.contains("create table if not exists public.sessions"))
        for path in first.files.keys where path.contains("0001_initial") {
            #expect(second[path] == first[path], "\(path) is shipped and must not change")
        }
        #expect(project.run("--check").status == 0)
    }

    @Test func aSnapshotFromBeforeServerCodeRecordsItWithoutAMigration() throws {
        let project = try ScratchProject()
        try project.writeSchema(ColumnAddTests.before)
        #expect(project.run().status == 0)
        let path = project.generatedURL.appendingPathComponent(Snapshot.fileName)
        var snapshot = try Snapshot.decode(String(contentsOf: path, encoding: .utf8))
        snapshot.serverCode = nil
        try Data(snapshot.encoded().utf8).write(to: path)

        let result = project.run()
        #expect(result.status == 0)
        #expect(result.out == "updated Generated/schema.snapshot.json")
        #expect(project.run("--check").status == 0)
    }
}
