import Foundation
import HopeSyncGenerator
import Testing

/// The hazard this project exists for: adding a column must be one edit and one command.
@Suite struct ColumnAddTests {
    static let before = """
        tables:
          sessions:
            columns:
              started_ms: int
              ended_ms: int?
        """
    static let after = before + "\n      note: text?\n"

    @Test func addingANullableColumnMakesExactlyOneNewMigrationPerDatabase() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.before)
        #expect(project.run().status == 0)
        let first = try project.generatedTree()

        try project.writeSchema(Self.after)
        let check = project.run("--check")
        #expect(check.status == 1)
        #expect(check.out.contains("pending migration: 0002_sessions_add_note"))
        #expect(first == (try project.generatedTree()), "--check writes nothing")

        #expect(project.run().status == 0)
        let second = try project.generatedTree()
        let added = Set(second.files.keys).subtracting(first.files.keys)
        // Both runs read the same fixed clock: the new stamp is one second after the shipped one.
        #expect(added == ["sqlite/0002_sessions_add_note.sql", "supabase/migrations/20261130090001_0002_sessions_add_note.sql"])
        for path in first.files.keys where path.contains("0001_initial") {
            #expect(second[path] == first[path], "\(path) is shipped and must not change")
        }
        #expect(second["sqlite/0002_sessions_add_note.sql"]!.contains("ALTER TABLE sessions ADD COLUMN note TEXT;"))
        #expect(second["swift/Session.swift"]!.contains("public var note: Swift.String?"))
        #expect(second["swift/GeneratedSchema.swift"]!.contains("name: \"sessions_add_note\""))
        #expect(second["rust/tables.rs"]!.contains("Column { name: \"note\", sqlite_type: \"TEXT\", nullable: true }"))
        #expect(second["rust/tables.rs"]!.contains("name: \"sessions_add_note\""))
        #expect(project.run("--check").status == 0)
    }

    @Test func aNotNullColumnWithoutADefaultIsRefusedAndNothingIsWritten() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.before)
        #expect(project.run().status == 0)
        let first = try project.generatedTree()
        try project.writeSchema(Self.before + "\n      mood: text\n")
        let result = project.run()
        #expect(result.status == 65)
        #expect(
            result.error
                == "\(project.schemaPath):6:7: error: new column 'sessions.mood' is NOT NULL without a default; hint: existing rows and old clients have no value for it: make it nullable ('text?') or give it a default"
        )
        #expect(first == (try project.generatedTree()))
    }

    @Test func destructiveChangesAreRefusedWithTheSafePath() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.after)
        #expect(project.run().status == 0)
        let first = try project.generatedTree()

        try project.writeSchema(Self.before)
        let dropped = project.run()
        #expect(dropped.status == 65)
        #expect(dropped.error.contains("column 'sessions.note' was removed"))
        #expect(dropped.error.contains("mark it 'deprecated: true' first"))

        try project.writeSchema(Self.before + "\n      comment: text?\n")
        #expect(project.run().error.contains("column 'sessions.note' was removed (renamed to 'comment'?)"))

        try project.writeSchema(Self.before + "\n      note: int?\n")
        let retyped = project.run()
        #expect(retyped.status == 65)
        #expect(retyped.error.contains("changed type from text to int"))
        #expect(first == (try project.generatedTree()))
    }

    @Test func aShippedMigrationEditedByHandIsNamed() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.before)
        #expect(project.run().status == 0)
        let path = project.generatedURL.appendingPathComponent("sqlite/0001_initial.sql")
        try Data(("-- tweak\n" + String(contentsOf: path, encoding: .utf8)).utf8).write(to: path)
        for arguments in [["--check"], []] {
            let result = arguments.isEmpty ? project.run() : project.run("--check")
            #expect(result.status == 1)
            #expect(result.error.contains("shipped migration Generated/sqlite/0001_initial.sql was edited by hand"))
        }
    }

    @Test func staleOutputIsListedWithADiff() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.before)
        #expect(project.run().status == 0)
        let path = project.generatedURL.appendingPathComponent("rust/tables.rs")
        let original = try String(contentsOf: path, encoding: .utf8)
        try Data(original.replacingOccurrences(of: "lookback: 0", with: "lookback: 7").utf8).write(to: path)
        let check = project.run("--check")
        #expect(check.status == 1)
        #expect(check.out.contains("stale: Generated/rust/tables.rs"))
        #expect(check.out.contains("-    lookback: 7,\n+    lookback: 0,"))
        #expect(project.run().out == "updated Generated/rust/tables.rs")
        #expect(try String(contentsOf: path, encoding: .utf8) == original)
        #expect(project.run().out == "Generated/ is current; nothing written.")
    }
}
