import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// Generated/ is committed and never edited by hand: it must equal what `generate` makes now.
@Suite struct GeneratedIsCurrentTests {
    @Test func committedGeneratedEqualsWhatGenerateMakes() throws {
        try expectCurrent(
            packageRoot, templates: TemplateSet(directory: packageRoot.appendingPathComponent("Templates")),
            fix: "swift run generate")
    }

    /// The upgrade tests' builds of one app (Tests/Fixtures/Upgrade): v1 and v2 compiled as
    /// targets, v3 (v2 with a writer floor) applied to PostgreSQL.
    @Test(arguments: ["v1", "v2", "v3"])
    func upgradeFixturesAreCurrent(version: String) throws {
        let folder = packageRoot.appendingPathComponent("Tests/Fixtures/Upgrade/\(version)")
        try expectCurrent(
            folder, templates: TemplateSet(directory: nil), fix: "swift run generate --schema Tests/Fixtures/Upgrade/\(version)/schema.yaml"
        )
    }

    /// The table rename's builds (Tests/Fixtures/TableRename, decision 0054), compiled as targets.
    @Test(arguments: ["v1", "v2", "v3"])
    func tableRenameFixturesAreCurrent(version: String) throws {
        let folder = packageRoot.appendingPathComponent("Tests/Fixtures/TableRename/\(version)")
        try expectCurrent(
            folder, templates: TemplateSet(directory: nil),
            fix: "generate each step over a copy of the step before's Generated/ (decision 0054's Proof)")
    }

    /// The example schema shared (Tests/Fixtures/Sharing), compiled as a target.
    @Test func sharingFixtureIsCurrent() throws {
        let folder = packageRoot.appendingPathComponent("Tests/Fixtures/Sharing")
        try expectCurrent(
            folder, templates: TemplateSet(directory: nil), fix: "swift run generate --schema Tests/Fixtures/Sharing/schema.yaml")
    }

    /// The app that follows the README (Tests/Fixtures/HabitApp); its build checks this too.
    @Test func habitAppFixtureIsCurrent() throws {
        let folder = packageRoot.appendingPathComponent("Tests/Fixtures/HabitApp")
        try expectCurrent(
            folder, templates: TemplateSet(directory: nil), fix: "swift run generate --schema Tests/Fixtures/HabitApp/schema.yaml")
    }

    private func expectCurrent(_ folder: URL, templates: TemplateSet, fix: String) throws {
        let source = try String(contentsOf: folder.appendingPathComponent("schema.yaml"), encoding: .utf8)
        let existing = try GeneratedTree.read(from: folder.appendingPathComponent("Generated"))
        let output = try Generator(templates: templates).generate(SchemaParser.parse(source), existing: existing)
        let writer = OutputWriter(directory: folder.appendingPathComponent("Generated"))
        let changes = writer.changes(from: existing, to: output.tree)
        #expect(
            changes.isEmpty,
            "\(folder.lastPathComponent)/Generated is stale; run `\(fix)` and commit it.\n\(writer.report(changes, existing: existing, generated: output.tree))"
        )
    }
}
