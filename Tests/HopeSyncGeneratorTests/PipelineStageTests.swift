import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// Each stage of the pipeline alone: a value in, a value out.
@Suite struct PipelineStageTests {
    static let yaml = """
        tables:
          sessions:
            columns:
              started_ms: int
        """

    @Test func parseReadsTheBytesAndRefusesWhatIsNotUTF8() throws {
        let parsed = try ParseStage().run(SchemaFile(bytes: Array(Self.yaml.utf8), name: "app.yaml"))
        #expect(parsed.schema.tables.map(\.name) == ["sessions"])
        #expect(parsed.locations.file == "app.yaml")
        #expect(throws: SchemaError.self) { try ParseStage().run(SchemaFile(bytes: [0x74, 0xFF], name: "app.yaml")) }
    }

    @Test func readHistoryFindsTheSnapshotOrRefusesMigrationsWithoutOne() throws {
        #expect(try ReadHistoryStage().run(GeneratedTree()).snapshot == nil)
        let shipped = try generate(Self.yaml).tree
        let history = try ReadHistoryStage().run(shipped)
        #expect(history.migrations.map(\.fileStem) == ["0001_initial"])
        var lost = shipped
        lost[Snapshot.fileName] = nil
        #expect(throws: GeneratorError.self) { try ReadHistoryStage().run(lost) }
        lost[Snapshot.fileName] = "{"
        #expect(throws: GeneratorError.self) { try ReadHistoryStage().run(lost) }
    }

    @Test func checkNamesRefusesNamesThatWouldMeet() throws {
        _ = try NameCheckStage().run(parse(Self.yaml))
        // Both would be the Rust constant TABLES_TABLE; the parser has nothing against them.
        let parsed = try parse("tables:\n  tables:\n    columns: { a: int }\n  tables_table:\n    columns: { a: int }\n")
        #expect(throws: SchemaError.self) { try NameCheckStage().run(parsed) }
    }

    @Test func planMakesTheFirstMigrationThenNothingMore() throws {
        let templates = try TemplateSet(directory: nil)
        let stage = PlanStage(templates: templates, stamp: fixedStamp)
        let checked = try NameCheckStage().run(parse(Self.yaml))
        let first = try stage.run(PlanInput(schema: checked, history: ReadHistoryStage().run(GeneratedTree())))
        #expect(first.next?.fileStem == "0001_initial")
        #expect(first.nextStamp == fixedStamp())
        #expect(first.serverCode.keys.sorted() == ["sessions"])
        let shipped = try RenderStage(templates: templates).run(first).tree
        let again = try stage.run(PlanInput(schema: checked, history: ReadHistoryStage().run(shipped)))
        #expect(again.next == nil)
        #expect(again.nextStamp == nil)
    }

    @Test func renderMakesEveryOutputAndCopiesShippedMigrations() throws {
        let templates = try TemplateSet(directory: nil)
        let checked = try NameCheckStage().run(parse(Self.yaml))
        let plan = try PlanStage(templates: templates, stamp: fixedStamp).run(
            PlanInput(schema: checked, history: ReadHistoryStage().run(GeneratedTree())))
        let rendered = try RenderStage(templates: templates).run(plan)
        #expect(
            rendered.tree.files.keys.sorted() == [
                "rust/tables.rs", "schema.snapshot.json", "sqlite/0001_initial.sql", "supabase/migrations/20261130090000_0001_initial.sql",
                "supabase/schema.sql", "supabase/tests/sync_test.sql", "swift/GeneratedSchema.swift", "swift/Session.swift",
            ])
        let edited = Self.yaml + "\n      note: text?\n"
        let next = try PlanStage(templates: templates, stamp: fixedStamp).run(
            PlanInput(schema: NameCheckStage().run(parse(edited)), history: ReadHistoryStage().run(rendered.tree)))
        let second = try RenderStage(templates: templates).run(next).tree
        #expect(second["sqlite/0001_initial.sql"] == rendered.tree["sqlite/0001_initial.sql"])
        #expect(second["sqlite/0002_sessions_add_note.sql"] != nil)
    }

    @Test func checkServerNamesReadsTheRenderedSQL() throws {
        let templates = try TemplateSet(directory: nil)
        let long = "tables:\n  \(String(repeating: "t", count: 50)):\n    columns:\n      note: text?\n"
        let plan = try PlanStage(templates: templates, stamp: fixedStamp).run(
            PlanInput(schema: NameCheckStage().run(parse(long)), history: ReadHistoryStage().run(GeneratedTree())))
        let rendered = try RenderStage(templates: templates).run(plan)
        #expect(throws: SchemaError.self) { try ServerNameCheckStage().run(rendered) }
    }
}
