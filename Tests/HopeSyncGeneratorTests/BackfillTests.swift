import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// Backfills (decision 0053): `backfill:` on a column in the edit that adds it fills the rows
/// the server holds, once, in the migration and in schema.sql, through the write trigger.
@Suite struct BackfillTests {
    static let v1 = """
        tables:
          habits:
            columns:
              title: text
          notes:
            conflict: { mode: version, version: integer }
            columns:
              title: text
          logs:
            merge: row
            columns:
              title: text
        """
    static let initial = #"      initial: { type: text, nullable: true, backfill: "upper(left(title, 1))" }"# + "\n"
    /// v1 with a backfilled column in each table (column merge, version, whole rows).
    static let v2 = """
        tables:
          habits:
            columns:
              title: text
        \(initial)  notes:
            conflict: { mode: version, version: integer }
            columns:
              title: text
              title_length: { type: int, nullable: true, backfill: "length(title)" }
          logs:
            merge: row
            columns:
              title: text
              letter: { type: text, nullable: true, backfill: "left(title, 1)" }

        """

    static func server(_ output: Generator.Output, _ number: String) -> String {
        ColumnLifecycleTests.server(output, number)
    }

    @Test func aBackfillRunsOnceAfterItsColumnIsAddedInTheMigrationAndInSchemaSQL() throws {
        let outputs = try ColumnLifecycleTests.steps([Self.v1, Self.v2])
        let migration = try #require(outputs[1].newMigration)
        #expect(migration.name == "update_habits_notes_logs")
        let server = Self.server(outputs[1], "0002")
        #expect(server.contains("create table if not exists public.sync_backfills ("))
        #expect(server.components(separatedBy: "create table if not exists public.sync_backfills").count == 2, "the table made once")
        #expect(server.contains("revoke all on table public.sync_backfills from anon, authenticated;"))
        #expect(server.contains("alter table public.sync_backfills enable row level security;"))
        // After the columns are added, each guarded by its name.
        let added = try #require(server.range(of: "alter table public.logs add column if not exists letter text;"))
        let backfills = try #require(server.range(of: "-- Backfills (decision 0053)"))
        #expect(added.upperBound < backfills.lowerBound)
        #expect(server.contains("insert into public.sync_backfills (name) values ('habits.initial@2') on conflict (name) do nothing"))
        #expect(server.contains("insert into public.sync_backfills (name) values ('notes.title_length@2')"))
        // Column merge: a stamp below every device's; only rows still null and unstamped.
        #expect(server.contains("update public.habits set initial = (upper(left(title, 1))),"))
        #expect(server.contains("else '000000000000000:' end)"))
        #expect(
            server.contains(
                "where exists (select from ran) and initial is null and not coalesce(column_stamps ? 'initial', false)\n    and (upper(left(title, 1))) is not null;"
            ))
        // A version table: the trigger moves the version; a whole-row table: the pair moves past itself.
        #expect(
            server.contains(
                "update public.notes set title_length = (length(title))\n  where exists (select from ran) and title_length is null\n"))
        #expect(server.contains("update public.logs set letter = (left(title, 1)),\n  updated_ms = updated_ms + 1, device_id = ''\n"))
        // schema.sql runs the same backfills, by the same names, after everything else.
        let schemaSQL = ColumnLifecycleTests.file(outputs[1], "supabase/schema.sql")
        #expect(schemaSQL.contains("values ('habits.initial@2')") && schemaSQL.contains("values ('logs.letter@2')"))
        let writers = try #require(schemaSQL.range(of: "create or replace function public.sync_hello("))
        #expect(try #require(schemaSQL.range(of: "-- Backfills (decision 0053)")).lowerBound > writers.upperBound)
        // pgTAP: each ran, and no user reads or writes the record of them.
        let tests = ColumnLifecycleTests.file(outputs[1], "supabase/tests/sync_test.sql")
        #expect(tests.contains("pg_catalog.split_part(name, '@', 1) = 'logs.letter'), 'backfills: logs.letter ran');"))
        #expect(tests.contains("'backfills: a user cannot read sync_backfills'"))
        // Recorded with the migration; devices and the table lists know only the column.
        let snapshot = try Snapshot.decode(ColumnLifecycleTests.file(outputs[1], Snapshot.fileName))
        #expect(snapshot.migrations[1].changes.contains("backfill habits.initial"))
        #expect(snapshot.schema.table(named: "habits")?.column(named: "initial")?.backfill == "upper(left(title, 1))")
        #expect(!ColumnLifecycleTests.file(outputs[1], "sqlite/0002_").contains("upper("))
        #expect(!ColumnLifecycleTests.file(outputs[1], "swift/Habit.swift").contains("upper("))
    }

    @Test func aProjectWithoutABackfillHasNoBackfillTable() throws {
        let outputs = try ColumnLifecycleTests.steps([Self.v1, Self.v1 + "\n      note: text?\n"])
        #expect(outputs[1].newMigration?.name == "logs_add_note")
        for text in outputs.flatMap(\.tree.files.values) { #expect(!text.contains("sync_backfills")) }
    }

    @Test func aShippedBackfillMayStayOrGoAndChangesNothing() throws {
        let outputs = try ColumnLifecycleTests.steps([Self.v1, Self.v2])
        let again = try generate(Self.v2, existing: outputs[1].tree)
        #expect(again.newMigration == nil)
        #expect(again.tree == outputs[1].tree)
        // Removed from schema.yaml: the snapshot keeps it, schema.sql still runs it (over a server
        // from before), and nothing else changes.
        let removed = Self.v2.replacingOccurrences(of: #", backfill: "upper(left(title, 1))""#, with: "")
        let gone = try generate(removed, existing: outputs[1].tree)
        #expect(gone.newMigration == nil)
        #expect(gone.tree == outputs[1].tree)
    }

    @Test(arguments: [
        (
            Self.v2.replacingOccurrences(of: "upper(left(title, 1))", with: "lower(left(title, 1))"),
            "the backfill of 'habits.initial' changed, but it ran once already (migration 2)"
        ),
        (
            Self.v2 + "  tags:\n    columns:\n      label: { type: text, nullable: true, backfill: \"'x'\" }\n",
            "column 'tags.label' of new table 'tags' has a backfill"
        ),
        (
            Self.v2.replacingOccurrences(
                of: "      title: text\n" + Self.initial, with: "      title: { type: text, backfill: \"'x'\" }\n" + Self.initial),
            "column 'habits.title' shipped without a backfill"
        ),
        (
            Self.v2 + "      other: { type: text, default: \"\", backfill: \"title\" }\n",
            "backfilled column 'logs.other' is not nullable without a default"
        ),
        (
            Self.v2 + "      picture: { type: file, bucket: pictures, nullable: true, backfill: \"title\" }\n",
            "file column 'logs.picture' cannot be backfilled"
        ),
        (
            Self.v2 + "      other: { type: text, nullable: true, backfill: 3 }\n",
            "expected an expression for 'backfill' of column 'other', found the number 3"
        ),
    ])
    func aBackfillThatCannotRunOnceIsRefused(_ yaml: String, _ message: String) throws {
        let outputs = try ColumnLifecycleTests.steps([Self.v1, Self.v2])
        do {
            _ = try generate(yaml, existing: outputs[1].tree)
            Issue.record("not refused: \(message)")
        } catch let error as SchemaError {
            #expect(error.diagnostics.map(\.message).contains(message), "\(error.diagnostics.map(\.message))")
            #expect(error.diagnostics.allSatisfy { $0.hint != nil })
        }
    }

    @Test func aRefusedBackfillLeavesGeneratedUntouched() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.v1)
        #expect(project.run().status == 0)
        try project.writeSchema(Self.v2)
        #expect(project.run().status == 0)
        let before = try project.generatedTree()
        try project.writeSchema(Self.v2.replacingOccurrences(of: "length(title)", with: "length(title) + 1"))
        let refused = project.run()
        #expect(refused.status != 0)
        #expect(refused.error.contains("ran once already"))
        #expect(try project.generatedTree() == before)
    }
}
