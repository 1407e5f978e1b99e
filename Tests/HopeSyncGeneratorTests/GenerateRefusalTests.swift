import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// What `generate` refuses rather than write something that would not compile, apply or
/// migrate, and what it writes instead of a repeated stamp.
@Suite struct GenerateRefusalTests {
    static let base = """
        tables:
          sessions:
            columns:
              started_ms: int
        """

    @Test func aLostSnapshotIsRefusedWithTheWayBackAndNothingIsTouched() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.base)
        #expect(project.run().status == 0)
        try project.writeSchema(Self.base + "\n      note: text?\n")
        #expect(project.run().status == 0)
        try FileManager.default.removeItem(at: project.generatedURL.appendingPathComponent(Snapshot.fileName))
        let before = try project.generatedTree()

        for arguments in [[], ["--check"]] {
            let (console, transcript) = GenerateCommand.Console.recording()
            let status = GenerateCommand(console: console, stamp: fixedStamp).run(["--schema", project.schemaPath] + arguments)
            #expect(status == GenerateCommand.ExitCode.stale)
            #expect(
                transcript.error.hasPrefix(
                    "error: Generated/schema.snapshot.json is missing, but Generated/ holds migrations (Generated/sqlite/0001_initial.sql, Generated/sqlite/0002_sessions_add_note.sql, Generated/supabase/migrations/20261130090000_0001_initial.sql and 1 more)"
                ))
            #expect(transcript.error.contains("git checkout -- Generated/schema.snapshot.json"))
            #expect(try project.generatedTree() == before, "nothing written")
        }
    }

    @Test func aNewStampIsAlwaysLaterThanEveryShippedOne() {
        // Same second, a clock behind, and SOURCE_DATE_EPOCH behind all give the next second.
        #expect(MigrationStamp.next("20261130090000", after: ["20261130090000"]) == "20261130090001")
        #expect(MigrationStamp.next("20250101000000", after: ["20261130090000", "20261231235959"]) == "20270101000000")
        #expect(MigrationStamp.next("20261130090005", after: ["20261130090000"]) == "20261130090005")
        #expect(MigrationStamp.next("20261130090005", after: []) == "20261130090005")
    }

    @Test func aStampBehindTheShippedOnesMakesTheNextSecond() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.base)
        #expect(project.run().status == 0)
        try project.writeSchema(Self.base + "\n      note: text?\n")
        let (console, _) = GenerateCommand.Console.recording()
        #expect(GenerateCommand(console: console, stamp: { "20200101000000" }).run(["--schema", project.schemaPath]) == 0)
        let migrations = try project.generatedTree().files.keys.filter { $0.hasPrefix("supabase/migrations/") }.sorted()
        #expect(
            migrations == [
                "supabase/migrations/20261130090000_0001_initial.sql", "supabase/migrations/20261130090001_0002_sessions_add_note.sql",
            ])
    }

    @Test func aTableNameTooLongForItsDerivedServerNamesIsRefused() throws {
        let long = String(repeating: "t", count: 50)
        let yaml = "tables:\n  \(long):\n    columns:\n      note: text?\n"
        #expect(
            throws: SchemaError([
                Diagnostic(
                    SourceLocation(file: "schema.yaml", line: 2, column: 3),
                    "the server name '\(long)_user_id_server_seq_idx', made from table '\(long)', is 73 bytes long",
                    hint:
                        "PostgreSQL cuts names at 63 bytes, so names made from one table could become one; shorten the table name by at least 10 bytes"
                )
            ])
        ) { try generate(yaml) }
        // 40 bytes is the longest the built-in templates allow.
        _ = try generate("tables:\n  \(String(repeating: "t", count: 40)):\n    columns:\n      note: text?\n")
    }

    @Test func aLongEnumColumnIsNamedInTheRefusal() throws {
        let column = String(repeating: "c", count: 60)
        let yaml = "tables:\n  things:\n    columns:\n      \(column): { type: enum, values: [a] }\n"
        #expect(
            throws: SchemaError([
                Diagnostic(
                    SourceLocation(file: "schema.yaml", line: 4, column: 7),
                    "the server name 'things_\(column)_check', made from table 'things' and column '\(column)', is 73 bytes long",
                    hint:
                        "PostgreSQL cuts names at 63 bytes, so names made from one table could become one; shorten the table or column name by at least 10 bytes"
                )
            ])
        ) { try generate(yaml) }
    }

    @Test func aTableNamedAfterAnotherTablesIndexIsRefused() throws {
        let yaml = """
            tables:
              a:
                columns:
                  note: text?
              a_user_id_server_seq_idx:
                columns:
                  note: text?
            """
        #expect(
            throws: SchemaError([
                Diagnostic(
                    SourceLocation(file: "schema.yaml", line: 5, column: 3),
                    "the server would create 'a_user_id_server_seq_idx' twice (an index, then a table)",
                    hint:
                        "PostgreSQL keeps tables, indexes and sequences in one namespace; rename the table or index that makes one of them"
                )
            ])
        ) { try generate(yaml) }
    }

    @Test func swiftAndRustNamesThatStillMeetAreRefused() throws {
        let yaml = """
            tables:
              tables:
                columns:
                  self: text?
                  self_: text?
              tables_table:
                columns:
                  note: text?
              things:
                swift_name: TABLE
                columns:
                  note: text?
            """
        #expect(
            throws: SchemaError([
                Diagnostic(
                    SourceLocation(file: "schema.yaml", line: 5, column: 7),
                    "column 'tables.self_' would be the Swift property 'self_', as column 'self' is", hint: "rename one of the columns"),
                Diagnostic(
                    SourceLocation(file: "schema.yaml", line: 6, column: 3),
                    "table 'tables_table' would be the Rust constant 'TABLES_TABLE', as table 'tables' is", hint: "rename one of the tables"
                ),
                Diagnostic(
                    SourceLocation(file: "schema.yaml", line: 9, column: 3),
                    "table 'things' would be written to the Swift file 'TABLE.swift', which differs only in case from table 'tables''s",
                    hint: "file systems that ignore case would keep one of them; give 'things' another swift_name"),
            ])
        ) { try generate(yaml) }
    }

    @Test func aSchemaThatIsNotUTF8IsAnInvalidSchemaWithItsPlace() throws {
        let project = try ScratchProject()
        try Data(Array("tables:\n  s".utf8) + [0xFF] + Array("s:\n".utf8)).write(to: URL(fileURLWithPath: project.schemaPath))
        let result = project.run()
        #expect(result.status == GenerateCommand.ExitCode.invalidSchema)
        #expect(
            result.error
                == "\(project.schemaPath):2:4: error: the file is not UTF-8: byte 0xFF at offset 11 is not a character; hint: save schema.yaml as UTF-8"
        )
        #expect(!FileManager.default.fileExists(atPath: project.generatedURL.path))
    }

    @Test func addingAnEnumValueIsRefusedWithTheReason() throws {
        let project = try ScratchProject()
        let yaml = "tables:\n  sessions:\n    columns:\n      source: { type: enum, values: [desktop, phone], default: desktop }\n"
        try project.writeSchema(yaml)
        #expect(project.run().status == 0)
        try project.writeSchema(yaml.replacingOccurrences(of: "[desktop, phone]", with: "[desktop, phone, watch]"))
        let result = project.run()
        #expect(result.status == GenerateCommand.ExitCode.invalidSchema)
        #expect(
            result.error
                == "\(project.schemaPath):4:7: error: the values of enum column 'sessions.source' cannot change once shipped (this added 'watch'); hint: clients in the field cannot read a value they do not know, and shipped local databases check the old list; add a new column (an enum with every value, or text) and fill it in the app"
        )
    }

    @Test func aHandAddedLocalMigrationFailsCheckAndGenerate() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.base)
        #expect(project.run().status == 0)
        try Data("ALTER TABLE sessions ADD COLUMN x TEXT;\n".utf8).write(
            to: project.generatedURL.appendingPathComponent("sqlite/0002_by_hand.sql"))
        let before = try project.generatedTree()
        for arguments in [["--check"], []] {
            let (console, transcript) = GenerateCommand.Console.recording()
            #expect(
                GenerateCommand(console: console, stamp: fixedStamp).run(["--schema", project.schemaPath] + arguments)
                    == GenerateCommand.ExitCode.stale)
            #expect(
                transcript.error
                    == "error: Generated/sqlite/0002_by_hand.sql is not a migration generate made, and no device would run it; remove it and put the change in schema.yaml"
            )
            #expect(try project.generatedTree() == before)
        }
    }

    @Test func aHandAddedSupabaseMigrationFailsCheckAndGenerate() throws {
        let project = try ScratchProject()
        try project.writeSchema(Self.base)
        #expect(project.run().status == 0)
        let path = "supabase/migrations/20261201000000_by_hand.sql"
        try Data("alter table public.sessions add column x text;\n".utf8).write(to: project.generatedURL.appendingPathComponent(path))
        let before = try project.generatedTree()
        for arguments in [["--check"], []] {
            let (console, transcript) = GenerateCommand.Console.recording()
            #expect(
                GenerateCommand(console: console, stamp: fixedStamp).run(["--schema", project.schemaPath] + arguments)
                    == GenerateCommand.ExitCode.stale)
            #expect(
                transcript.error
                    == "error: Generated/\(path) is not a migration generate made; `supabase db push` would run it on the server, but schema.sql, verify and the devices know nothing of it; remove it and put the change in schema.yaml (keep SQL of your own in a migrations folder outside Generated/)"
            )
            #expect(try project.generatedTree() == before)
        }
    }
}
