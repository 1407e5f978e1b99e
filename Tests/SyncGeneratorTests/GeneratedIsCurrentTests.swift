import Foundation
import SyncGenerator
import SyncSchema
import Testing

/// Generated/ is committed and never edited by hand: it must equal what `generate` makes now.
@Suite struct GeneratedIsCurrentTests {
    @Test func committedGeneratedEqualsWhatGenerateMakes() throws {
        let source = try String(contentsOf: packageRoot.appendingPathComponent("schema.yaml"), encoding: .utf8)
        let existing = try GeneratedTree.read(from: packageRoot.appendingPathComponent("Generated"))
        let templates = try TemplateSet(directory: packageRoot.appendingPathComponent("Templates"))
        let output = try Generator(templates: templates).generate(SchemaParser.parse(source), existing: existing)
        let writer = OutputWriter(directory: packageRoot.appendingPathComponent("Generated"))
        let changes = writer.changes(from: existing, to: output.tree)
        #expect(
            changes.isEmpty,
            "Generated/ is stale; run `swift run generate` and commit it.\n\(writer.report(changes, existing: existing, generated: output.tree))"
        )
    }
}
