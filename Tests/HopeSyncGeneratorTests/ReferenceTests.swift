import Foundation
import HopeSyncGenerator
import Testing

/// One small schema per feature; the generated files must equal the committed expected ones.
/// `RECORD_REFERENCES=1 swift test --filter ReferenceTests` rewrites them after a deliberate
/// change (then read the diff before committing).
@Suite struct ReferenceTests {
    static let root = packageRoot.appendingPathComponent("Tests/HopeSyncGeneratorTests/References")
    static let cases = [
        "lww_table", "version_timestamp", "version_integer", "column_types", "open_row_rule", "lookback_ordering", "indexes", "hard_names",
        "shared_scope",
    ]

    @Test(arguments: cases)
    func generatedFilesEqualTheReference(_ name: String) throws {
        let folder = Self.root.appendingPathComponent(name)
        let yaml = try String(contentsOf: folder.appendingPathComponent("schema.yaml"), encoding: .utf8)
        let generated = try generate(yaml).tree
        let expectedURL = folder.appendingPathComponent("expected")
        if ProcessInfo.processInfo.environment["RECORD_REFERENCES"] == "1" {
            try? FileManager.default.removeItem(at: expectedURL)
            let writer = OutputWriter(directory: expectedURL)
            try writer.write(writer.changes(from: GeneratedTree(), to: generated), generated: generated)
        }
        let expected = try GeneratedTree.read(from: expectedURL)
        #expect(Set(generated.files.keys) == Set(expected.files.keys))
        for path in generated.files.keys.sorted() {
            #expect(generated[path] == expected[path], "\(name)/expected/\(path) differs; record with RECORD_REFERENCES=1 if intended")
        }
    }

    @Test func outputIsDeterministic() throws {
        let yaml = try String(contentsOf: packageRoot.appendingPathComponent("schema.yaml"), encoding: .utf8)
        #expect(try generate(yaml).tree == generate(yaml).tree)
    }
}
