import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// Renaming a table (decision 0054), step by step: each step's outputs, the refusals with what
/// to do instead, and the contract refused until `oldest_writer` allows it.
@Suite struct TableRenameTests {
    static let v1 = """
        tables:
          habits:
            columns:
              name: text
              kind: { type: enum, values: [daily, weekly], default: daily }
          notes:
            conflict: { mode: version, version: integer }
            columns:
              heading: text
        """
    static let v2 = """
        tables:
          routines:
            was: habits
            columns:
              name: text
              kind: { type: enum, values: [daily, weekly], default: daily }
          notes:
            conflict: { mode: version, version: integer }
            columns:
              heading: text
        """
    static func v3(floor: Int?) -> String {
        (floor.map { "oldest_writer: \($0)\n" } ?? "") + v2.replacingOccurrences(of: "    was: habits\n", with: "")
    }

    @Test func aRenameRenamesBothDatabasesAndKeepsTheOldNameOnTheServer() throws {
        let outputs = try ColumnLifecycleTests.steps([Self.v1, Self.v2])
        let v2 = outputs[1]
        #expect(v2.newMigration?.name == "routines_rename_from_habits")
        let sqlite = ColumnLifecycleTests.file(v2, "sqlite/0002_")
        #expect(sqlite.contains("ALTER TABLE habits RENAME TO routines;"))
        #expect(sqlite.contains("CREATE INDEX routines__dirty_idx ON routines (_dirty) WHERE _dirty = 1;"))
        #expect(sqlite.contains("VALUES ('habits', '', 'routines');"))
        #expect(!sqlite.contains("notes"))
        let server = ColumnLifecycleTests.server(v2, "0002")
        #expect(server.contains("alter table public.habits rename to routines;"))
        #expect(server.contains("create view public.habits with (security_invoker = true) as select * from public.routines;"))
        #expect(server.contains("grant select, insert, update on table public.habits to authenticated;"))
        #expect(server.contains("create or replace trigger routines_before_write"))
        // The pull function answers an old build's key from the view.
        #expect(server.contains("select 'habits' as name"))
        #expect(server.contains("from public.habits t where t.server_seq > (cursors ->> 'habits')::bigint"))
        let schemaSQL = ColumnLifecycleTests.file(v2, "supabase/schema.sql")
        #expect(schemaSQL.contains("alter table public.habits rename to routines;"))
        #expect(schemaSQL.contains("create table if not exists public.routines ("))
        #expect(schemaSQL.contains("create view public.habits with (security_invoker = true)"))
        // New builds know the new name only.
        #expect(v2.tree["swift/Routine.swift"] != nil && v2.tree["swift/Habit.swift"] == nil)
        let rust = ColumnLifecycleTests.file(v2, "rust/tables.rs")
        #expect(rust.contains("\"routines\"") && !rust.contains("\"habits\""))
        let snapshot = try Snapshot.decode(ColumnLifecycleTests.file(v2, Snapshot.fileName))
        #expect(snapshot.migrations[1].changes.contains("rename table habits>routines"))
        let shipped = try Snapshot.decode(ColumnLifecycleTests.file(outputs[0], Snapshot.fileName))
        #expect(snapshot.serverColumns?["routines"] == shipped.serverColumns?["habits"], "the order follows the name")
        // The run after changes nothing.
        let again = try generate(Self.v2, existing: v2.tree)
        #expect(again.newMigration == nil && again.tree == v2.tree)
    }

    @Test func theContractWaitsForTheFloorThenKeepsTheOldName() throws {
        let outputs = try ColumnLifecycleTests.steps([Self.v1, Self.v2])
        for floor in [nil, 1] {
            do {
                _ = try generate(Self.v3(floor: floor), existing: outputs[1].tree)
                Issue.record("the contract was not refused")
            } catch let error as SchemaError {
                #expect(
                    error.diagnostics.map(\.message) == [
                        "the rename of table 'habits' to 'routines' cannot finish yet: 'oldest_writer' has not passed it"
                    ])
                #expect(error.diagnostics.first?.hint?.contains("set 'oldest_writer: 2' (or higher)") == true)
            }
        }
        let v3 = try generate(Self.v3(floor: 2), existing: outputs[1].tree)
        let server = ColumnLifecycleTests.server(v3, "0003")
        #expect(server.contains("-- The rename from habits is finished"))
        #expect(server.contains("select 'habits' as name"), "builds below the floor still pull through it")
        #expect(!ColumnLifecycleTests.file(v3, "sqlite/0003_").contains("ALTER TABLE"))
        let snapshot = try Snapshot.decode(ColumnLifecycleTests.file(v3, Snapshot.fileName))
        #expect(snapshot.migrations[2].changes.contains("finish table habits>routines"))
        #expect(snapshot.schema.table(named: "routines")?.formerNames == ["habits"])
        #expect(snapshot.schema.table(named: "routines")?.was == nil)
        #expect(ColumnLifecycleTests.file(v3, "supabase/schema.sql").contains("create view public.habits"))
        let again = try generate(Self.v3(floor: 2), existing: v3.tree)
        #expect(again.newMigration == nil && again.tree == v3.tree)
        // The old name stays taken.
        let reused = Self.v3(floor: 2) + "\n  habits:\n    columns:\n      label: text\n"
        #expect(throws: SchemaError.self) { try generate(reused, existing: v3.tree) }
    }

    @Test(arguments: [
        (
            v2.replacingOccurrences(of: "was: habits", with: "was: nope"),
            "table 'routines' was 'nope', but no shipped table is named 'nope'"
        ),
        (
            v2 + "\n  habits:\n    columns:\n      name: text\n      kind: { type: enum, values: [daily, weekly], default: daily }\n",
            "table 'habits' is renamed to 'routines' but is still in schema.yaml"
        ),
        (
            v2.replacingOccurrences(of: "      name: text\n", with: "      name: text\n      extra: text?\n"),
            "table 'habits' is renamed to 'routines' and changed in the same edit"
        ),
        (
            v2
                + "\n  lists:\n    was: habits\n    columns:\n      name: text\n      kind: { type: enum, values: [daily, weekly], default: daily }\n",
            "table 'habits' is renamed twice"
        ),
        (
            v2.replacingOccurrences(of: "    was: habits\n", with: "    was: habits\n    deprecated: true\n"),
            "table 'habits' is deprecated and renamed at once"
        ),
        (
            v1.replacingOccurrences(
                of: "    conflict: { mode: version, version: integer }\n",
                with: "    was: memos\n    conflict: { mode: version, version: integer }\n"),
            "table 'notes' shipped under this name, so it cannot have been 'memos'"
        ),
    ])
    func aRenameThatCannotBeSafeIsRefused(_ yaml: String, _ message: String) throws {
        let v1 = try generate(Self.v1)
        do {
            _ = try generate(yaml, existing: v1.tree)
            Issue.record("not refused: \(message)")
        } catch let error as SchemaError {
            #expect(error.diagnostics.map(\.message).contains(message), "\(error.diagnostics.map(\.message))")
            #expect(error.diagnostics.allSatisfy { $0.hint?.isEmpty == false })
        }
    }

    /// A later change of a renamed table's columns makes its old names' views again around it:
    /// a view pins the columns it selects (and PostgreSQL drops no column a view reads).
    @Test func aLaterColumnChangeMakesTheOldNamesViewsAgain() throws {
        let v3 = try ColumnLifecycleTests.steps([Self.v1, Self.v2, Self.v3(floor: 2)])[2]
        let v4 = try generate(
            Self.v3(floor: 2).replacingOccurrences(of: "      name: text\n", with: "      name: text\n      note: text?\n"),
            existing: v3.tree)
        let server = ColumnLifecycleTests.server(v4, "0004")
        let drop = try #require(server.range(of: "drop view if exists public.habits;"))
        let add = try #require(server.range(of: "alter table public.routines add column if not exists note text;"))
        let create = try #require(server.range(of: "create view public.habits with (security_invoker = true)"))
        #expect(drop.upperBound < add.lowerBound && add.upperBound < create.lowerBound)
    }

    /// A table gone from schema.yaml points at the rename as well as the deprecation.
    @Test func aRemovedTablePointsAtTheRename() throws {
        let v1 = try generate(Self.v1)
        let renamedWithoutWas = Self.v2.replacingOccurrences(of: "    was: habits\n", with: "")
        do {
            _ = try generate(renamedWithoutWas, existing: v1.tree)
            Issue.record("not refused")
        } catch let error as SchemaError {
            #expect(error.diagnostics.first?.hint?.contains("rename it with 'was: habits' under its new name") == true)
        }
    }

    @Test func aTableIsRenamedOneStepAtATime() throws {
        let v2 = try ColumnLifecycleTests.steps([Self.v1, Self.v2])[1]
        let again = Self.v2.replacingOccurrences(of: "  routines:\n    was: habits\n", with: "  checklists:\n    was: routines\n")
        do {
            _ = try generate(again, existing: v2.tree)
            Issue.record("a second rename mid-rename was not refused")
        } catch let error as SchemaError {
            #expect(error.diagnostics.map(\.message) == ["table 'routines' is still being renamed from 'habits'"])
        }
        let changed = Self.v2.replacingOccurrences(of: "was: habits", with: "was: notes")
        #expect(throws: SchemaError.self) { try generate(changed, existing: v2.tree) }
    }

    /// References name the new table, its own and other tables' (a reference is logical).
    @Test func referencesFollowTheRename() throws {
        func referencing(_ yaml: String, _ table: String) -> String {
            let kind = "      kind: { type: enum, values: [daily, weekly], default: daily }\n"
            return yaml.replacingOccurrences(
                of: kind, with: kind + "      parent_id: { type: uuid, nullable: true, references: \(table) }\n")
                + "\n  logs:\n    columns:\n      habit_id: { type: uuid, references: \(table) }\n"
        }
        let v1 = try generate(referencing(Self.v1, "habits"))
        let v2 = try generate(referencing(Self.v2, "routines"), existing: v1.tree)
        #expect(v2.newMigration?.name == "routines_rename_from_habits")
    }

    @Test func aTableOfAProjectThatSharesIsNotRenamedYet() throws {
        let shared = """
            tables:
              lists:
                scope: true
                columns:
                  title: text
              items:
                scope: list_id
                columns:
                  list_id: { type: uuid, nullable: true, references: lists }
                  label: text
              notes:
                columns:
                  body: text
            """
        let v1 = try generate(shared)
        let renamed = shared.replacingOccurrences(of: "  notes:\n", with: "  memos:\n    was: notes\n")
        do {
            _ = try generate(renamed, existing: v1.tree)
            Issue.record("not refused")
        } catch let error as SchemaError {
            #expect(error.diagnostics.first?.message.contains("not supported yet") == true)
        }
    }

    @Test func aRefusedStepLeavesGeneratedUntouched() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.v1)
        #expect(project.run().status == 0)
        try project.writeSchema(Self.v2)
        #expect(project.run().status == 0)
        let before = try project.generatedTree()
        try project.writeSchema(Self.v3(floor: 1))
        let refused = project.run()
        #expect(refused.status != 0)
        #expect(refused.error.contains("cannot finish yet"))
        #expect(try project.generatedTree() == before)
        try project.writeSchema(Self.v3(floor: 2))
        #expect(project.run().status == 0)
        #expect(try project.generatedTree() != before)
    }
}
