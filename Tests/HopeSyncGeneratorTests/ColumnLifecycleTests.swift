import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// The column lifecycle (decision 0052), step by step: each step's outputs, and the steps
/// refused until `oldest_writer` allows them, with what to do instead.
@Suite struct ColumnLifecycleTests {
    static let v1 = """
        tables:
          habits:
            columns:
              name: text
              streak: int
              note: text?
          notes:
            conflict: { mode: version, version: integer }
            columns:
              heading: text
        """
    static let v2 = """
        tables:
          habits:
            columns:
              title: { type: text, was: name }
              streak: { type: int, default: 0, deprecated: true }
              note: text?
          notes:
            conflict: { mode: version, version: integer }
            columns:
              title: { type: text, was: heading }
        """
    static func v3(floor: Int) -> String {
        """
        oldest_writer: \(floor)
        tables:
          habits:
            columns:
              title: text
              note: text?
          notes:
            conflict: { mode: version, version: integer }
            columns:
              title: text
        """
    }

    /// Each schema generated over the tree the one before it left.
    static func steps(_ schemas: [String]) throws -> [Generator.Output] {
        var outputs: [Generator.Output] = []
        for yaml in schemas { outputs.append(try generate(yaml, existing: outputs.last?.tree ?? GeneratedTree())) }
        return outputs
    }

    /// The file whose path starts with `prefix`.
    static func file(_ output: Generator.Output, _ prefix: String) -> String {
        output.tree.files.first { $0.key.hasPrefix(prefix) }?.value ?? ""
    }

    /// The new Supabase migration numbered `number`.
    static func server(_ output: Generator.Output, _ number: String) -> String {
        output.tree.files.first { $0.key.hasPrefix("supabase/migrations/") && $0.key.contains("_\(number)_") }?.value ?? ""
    }

    @Test func aRenameAddsTheNewNameBesideTheOldOnTheServerAndRenamesOnDevices() throws {
        let v2 = try Self.steps([Self.v1, Self.v2])[1]
        let migration = try #require(v2.newMigration)
        #expect(migration.name == "update_habits_notes")
        let sqlite = Self.file(v2, "sqlite/0002_")
        #expect(sqlite.contains("ALTER TABLE habits RENAME COLUMN name TO title;"))
        #expect(sqlite.contains("json_set(json_remove(column_stamps, '$.name'), '$.title', json_extract(column_stamps, '$.name'))"))
        #expect(sqlite.contains("INSERT INTO _sync_column_changes (table_name, old_name, new_name) VALUES ('habits', 'name', 'title');"))
        #expect(sqlite.contains("ALTER TABLE notes RENAME COLUMN heading TO title;"))
        let server = Self.server(v2, "0002")
        #expect(server.contains("alter table public.habits add column if not exists title text;"))
        #expect(server.contains("update public.habits set title = coalesce(title, name)"))
        #expect(server.contains("alter table public.habits alter column title set not null;"))
        // Both names kept equal by the write trigger, the stamp copied under column merge.
        #expect(
            server.contains(
                "new.column_stamps := new.column_stamps || pg_catalog.jsonb_build_object('title', new.column_stamps -> 'name');"))
        #expect(server.contains("elsif new.heading is distinct from old.heading then\n    new.title := new.heading;"))
        // New builds know the new name only.
        let swift = Self.file(v2, "swift/Habit.swift")
        #expect(swift.contains("title") && !swift.contains("\"name\""))
        let rust = Self.file(v2, "rust/tables.rs")
        #expect(rust.contains("\"title\"") && !rust.contains("\"name\"") && !rust.contains("\"heading\""))
        let snapshot = try Snapshot.decode(Self.file(v2, Snapshot.fileName))
        #expect(snapshot.migrations[1].changes.contains("rename habits.name>title"))
        #expect(snapshot.migrations[1].changes.contains("rename notes.heading>title"))
        // The server holds both names; schema.sql makes them, the new one last.
        #expect(snapshot.serverColumns?["habits"]?.suffix(1) == ["title"])
        #expect(snapshot.serverColumns?["habits"]?.contains("name") == true)
    }

    @Test func aDeprecatedColumnLeavesNewBuildsAndStaysOnTheServerWithADefault() throws {
        let v2 = try Self.steps([Self.v1, Self.v2])[1]
        let sqlite = Self.file(v2, "sqlite/0002_")
        #expect(sqlite.contains("ALTER TABLE habits DROP COLUMN streak;"))
        #expect(sqlite.contains("json_remove(column_stamps, '$.streak')"))
        #expect(Self.server(v2, "0002").contains("alter table public.habits alter column streak set default 0;"))
        #expect(!Self.file(v2, "swift/Habit.swift").contains("streak"))
        #expect(!Self.file(v2, "rust/tables.rs").contains("\"streak\""))
        #expect(Self.file(v2, "supabase/schema.sql").contains("streak bigint not null default 0"))
    }

    @Test func finishingARenameOrRemovingADeprecatedColumnWaitsForTheFloor() throws {
        let outputs = try Self.steps([Self.v1, Self.v2])
        #expect(throws: SchemaError.self) { try generate(Self.v3(floor: 1), existing: outputs[1].tree) }
        do {
            _ = try generate(Self.v3(floor: 1), existing: outputs[1].tree)
        } catch let error as SchemaError {
            let messages = error.diagnostics.map(\.message)
            #expect(messages.contains("the rename of 'habits.name' to 'title' cannot finish yet: 'oldest_writer' has not passed it"))
            #expect(messages.contains("the rename of 'notes.heading' to 'title' cannot finish yet: 'oldest_writer' has not passed it"))
            #expect(
                messages.contains("deprecated column 'habits.streak' cannot be removed yet: 'oldest_writer' has not passed its deprecation")
            )
            #expect(error.diagnostics.allSatisfy { $0.hint?.contains("'oldest_writer: 2'") == true })
        }
        // Without any floor, too.
        #expect(throws: SchemaError.self) {
            try generate(Self.v3(floor: 1).replacingOccurrences(of: "oldest_writer: 1\n", with: ""), existing: outputs[1].tree)
        }
    }

    @Test func finishedStepsLeaveTheOldNamesServedReadOnly() throws {
        let v3 = try Self.steps([Self.v1, Self.v2, Self.v3(floor: 2)])[2]
        let server = Self.server(v3, "0003")
        #expect(server.contains("alter table public.habits drop column name;"))
        #expect(server.contains("alter table public.habits add column if not exists name text generated always as (title) stored;"))
        #expect(
            server.contains("alter table public.habits add column if not exists streak bigint generated always as ((0)::bigint) stored;"))
        #expect(server.contains("alter table public.notes add column if not exists heading text generated always as (title) stored;"))
        // The trigger forgets the old name; devices did their part at the step before.
        #expect(!server.contains("new.name :="))
        #expect(!Self.file(v3, "sqlite/0003_").contains("ALTER TABLE"))
        let snapshot = try Snapshot.decode(Self.file(v3, Snapshot.fileName))
        #expect(snapshot.migrations[2].changes.contains("retire habits.name"))
        #expect(snapshot.schema.table(named: "habits")?.retired.map(\.column.name) == ["name", "streak"])
        // The run after changes nothing: the retired columns are carried, not made again.
        let again = try generate(Self.v3(floor: 2), existing: v3.tree)
        #expect(again.newMigration == nil)
        #expect(again.tree == v3.tree)
    }

    @Test func removingAColumnStillPointsAtTheSteps() throws {
        let v1 = try generate(Self.v1)
        let removed = Self.v1.replacingOccurrences(of: "      note: text?\n", with: "")
        do {
            _ = try generate(removed, existing: v1.tree)
            Issue.record("removing a column was not refused")
        } catch let error as SchemaError {
            #expect(error.diagnostics.map(\.message) == ["column 'habits.note' was removed"])
            #expect(error.diagnostics.first?.hint?.contains("'deprecated: true' first") == true)
        }
    }

    @Test(arguments: [
        (
            "tables:\n  habits:\n    columns:\n      title: { type: text, was: nope }\n      streak: int\n      note: text?\n  notes:\n    conflict: { mode: version, version: integer }\n    columns:\n      heading: text\n",
            "column 'habits.title' was 'nope', but 'habits' has no shipped column 'nope' to rename"
        ),
        (
            "tables:\n  habits:\n    columns:\n      title: { type: text, nullable: true, was: name }\n      streak: int\n      note: text?\n  notes:\n    conflict: { mode: version, version: integer }\n    columns:\n      heading: text\n",
            "the rename of 'habits.name' to 'title' also changes its type, nullability or default"
        ),
        (
            "tables:\n  habits:\n    columns:\n      name: text\n      streak: { type: int, deprecated: true }\n      note: text?\n  notes:\n    conflict: { mode: version, version: integer }\n    columns:\n      heading: text\n",
            "deprecated column 'habits.streak' is NOT NULL without a default"
        ),
        (
            "tables:\n  habits:\n    columns:\n      name: text\n      streak: int\n      note: text?\n      extra: { type: text, nullable: true, deprecated: true }\n  notes:\n    conflict: { mode: version, version: integer }\n    columns:\n      heading: text\n",
            "new column 'habits.extra' is deprecated"
        ),
        (
            "tables:\n  habits:\n    columns:\n      name: text\n      streak: int\n      note: text?\n  notes:\n    conflict: { mode: version, version: integer }\n    columns:\n      heading: text\n  tags:\n    columns:\n      label: { type: text, was: name }\n",
            "column 'tags.label' of new table 'tags' is renamed ('was')"
        ),
    ])
    func aStepThatCannotBeSafeIsRefused(_ yaml: String, _ message: String) throws {
        let v1 = try generate(Self.v1)
        do {
            _ = try generate(yaml, existing: v1.tree)
            Issue.record("not refused: \(message)")
        } catch let error as SchemaError {
            #expect(error.diagnostics.map(\.message).contains(message), "\(error.diagnostics.map(\.message))")
        }
    }

    @Test func aColumnCannotStopBeingDeprecated() throws {
        let outputs = try Self.steps([Self.v1, Self.v2])
        let back = Self.v2.replacingOccurrences(
            of: "streak: { type: int, default: 0, deprecated: true }", with: "streak: { type: int, default: 0 }")
        #expect(throws: SchemaError.self) { try generate(back, existing: outputs[1].tree) }
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

    static let goals = "tables:\n  habits:\n    columns:\n      goal: int?\n"
    static func retyped(_ was: String) -> String {
        "tables:\n  habits:\n    columns:\n      goal_text: { type: text, nullable: true, was: \(was) }\n"
    }
    static let conversions = #"{ name: goal, type: int, to: "goal::text", back: "goal_text::bigint" }"#

    @Test func aRetypeIsARenameWithTheConversionsBothWays() throws {
        let finished = "oldest_writer: 2\ntables:\n  habits:\n    columns:\n      goal_text: text?\n"
        let outputs = try Self.steps([Self.goals, Self.retyped(Self.conversions), finished])
        let sqlite = Self.file(outputs[1], "sqlite/0002_")
        #expect(
            sqlite.contains(
                "ALTER TABLE habits ADD COLUMN goal_text TEXT;\nUPDATE habits SET goal_text = CAST(goal AS TEXT);\nALTER TABLE habits DROP COLUMN goal;"
            ))
        let server = Self.server(outputs[1], "0002")
        #expect(server.contains("update public.habits set goal_text = coalesce(goal_text, (goal::text)),"))
        #expect(server.contains("declare goal bigint := new.goal; begin new.goal_text := (goal::text); end;"))
        #expect(server.contains("declare goal_text text := new.goal_text; begin new.goal := (goal_text::bigint); end;"))
        #expect(Self.file(outputs[1], "swift/Habit.swift").contains("goalText: Swift.String?"))
        #expect(
            Self.server(outputs[2], "0003").contains(
                "alter table public.habits add column if not exists goal bigint generated always as ((goal_text::bigint)) stored;"))
    }

    @Test(arguments: [
        (#"{ name: goal, type: text, to: "goal", back: "goal_text" }"#, "'was' says 'habits.goal' is text, but it shipped as int"),
        (#"{ name: goal, type: int, to: "goal::text" }"#, "'was' of column 'goal_text' has no 'back'"),
        (
            #"{ name: goal, type: bool, to: "goal::text", back: "goal_text::bool" }"#,
            "a retype converts between text, int, double, not 'bool'"
        ),
    ])
    func aRetypeThatCannotBeSafeIsRefused(_ was: String, _ message: String) throws {
        let v1 = try generate(Self.goals)
        do {
            _ = try generate(Self.retyped(was), existing: v1.tree)
            Issue.record("not refused: \(message)")
        } catch let error as SchemaError {
            #expect(error.diagnostics.map(\.message).contains(message), "\(error.diagnostics.map(\.message))")
        }
    }

    static let tags = "tables:\n  habits:\n    columns:\n      name: text\n  tags:\n    columns:\n      label: text\n"
    static let tagsDeprecated =
        "tables:\n  habits:\n    columns:\n      name: text\n  tags:\n    deprecated: true\n    columns:\n      label: text\n"

    @Test func aDeprecatedTableLeavesNewBuildsAndStaysOnTheServer() throws {
        let outputs = try Self.steps([Self.tags, Self.tagsDeprecated])
        #expect(outputs[1].newMigration?.name == "tags_deprecate_table")
        let sqlite = Self.file(outputs[1], "sqlite/0002_")
        #expect(sqlite.contains("DROP TABLE tags;"))
        #expect(sqlite.contains("VALUES ('tags', '', NULL);"))
        #expect(outputs[1].tree["swift/Tag.swift"] == nil)
        #expect(!Self.file(outputs[1], "swift/GeneratedSchema.swift").contains("Tag.table"))
        #expect(!Self.file(outputs[1], "rust/tables.rs").contains("\"tags\""))
        #expect(Self.file(outputs[1], "supabase/schema.sql").contains("create table if not exists public.tags ("))
        #expect(Self.server(outputs[1], "0002").contains("-- tags is deprecated"))
        // It stays as it is: a second run changes nothing.
        #expect(try generate(Self.tagsDeprecated, existing: outputs[1].tree).newMigration == nil)
    }

    @Test func aDeprecatedTableStaysAsItIs() throws {
        let outputs = try Self.steps([Self.tags, Self.tagsDeprecated])
        let cases = [
            (Self.tags, "'tags' cannot stop being deprecated"),
            (Self.tagsDeprecated + "      note: text?\n", "deprecated table 'tags' changed"),
            (
                "tables:\n  habits:\n    columns:\n      name: text\n",
                "deprecated table 'tags' cannot leave schema.yaml yet: 'oldest_writer' has not passed its deprecation"
            ),
        ]
        for (yaml, message) in cases {
            do {
                _ = try generate(yaml, existing: outputs[1].tree)
                Issue.record("not refused: \(message)")
            } catch let error as SchemaError {
                #expect(error.diagnostics.map(\.message) == [message])
            }
        }
        let newTable = Self.tags + "  labels:\n    deprecated: true\n    columns:\n      text: text\n"
        #expect(throws: SchemaError.self) { try generate(newTable, existing: outputs[0].tree) }
    }

    @Test func aDeprecatedTableLeavesSchemaYamlOnceTheFloorPassesItAndTheServerKeepsIt() throws {
        let outputs = try Self.steps([Self.tags, Self.tagsDeprecated])
        let gone = try generate("oldest_writer: 2\ntables:\n  habits:\n    columns:\n      name: text\n", existing: outputs[1].tree)
        // The table leaving changes nothing: the one migration is the floor's, in the code every
        // table shares (decision 0051); the snapshot carries the table on, and the server keeps it.
        #expect(gone.newMigration?.name == "update_shared_server_code")
        #expect(gone.newMigration?.changes == [])
        #expect(Self.server(gone, "0003").contains("sync_check_writer") && !Self.server(gone, "0003").contains("drop table"))
        #expect(Self.file(gone, "supabase/schema.sql").contains("create table if not exists public.tags ("))
        #expect(Self.file(gone, "supabase/schema.sql").contains("create or replace trigger tags_check_writer"))
        #expect(try Snapshot.decode(Self.file(gone, Snapshot.fileName)).schema.table(named: "tags")?.isDeprecated == true)
    }
}
