import Foundation
import Testing

@testable import HopeSyncSchema

/// Input no editor makes but a parser must survive: nesting deep enough to exhaust the stack,
/// bytes that are not UTF-8.
@Suite struct HostileInputTests {
    @Test func deepNestingIsRefusedAtTheLevelPastTheLimitAndQuickly() throws {
        let deepList = "tables: " + String(repeating: "[", count: 60_000)
        let deepMappings = "tables: " + String(repeating: "{a: ", count: 100_000)
        for source in [deepList, deepMappings] {
            let started = ContinuousClock.now
            #expect(
                throws: SchemaError([
                    Diagnostic(
                        SourceLocation(file: "schema.yaml", line: 1, column: source == deepList ? 9 + 63 : 9 + 63 * 4),
                        "the YAML nests deeper than 64 levels",
                        hint: "a schema needs a few levels; write a deep JSON default in the app instead"
                    )
                ])
            ) { try SchemaParser.parse(source) }
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }

    @Test func nestingUpToTheLimitReads() {
        let reader = YAMLReader(String(repeating: "[", count: 64) + String(repeating: "]", count: 64), file: "f.yaml")
        #expect(reader.isFaithful)
        #expect(reader.log.isEmpty)
    }

    @Test func bytesThatAreNotUTF8AreReportedByLineAndColumn() throws {
        let bytes = Array("tables:\n  s\u{E9}ssions:\n".utf8.prefix(11)) + [0xFF, 0x41] + Array("ssions:\n".utf8)
        #expect(
            throws: SchemaError([
                Diagnostic(
                    SourceLocation(file: "schema.yaml", line: 2, column: 4),
                    "the file is not UTF-8: byte 0xFF at offset 11 is not a character",
                    hint: "save schema.yaml as UTF-8"
                )
            ])
        ) { try SourceText.decode(bytes, file: "schema.yaml") }
        #expect(try SourceText.decode([0xEF, 0xBB, 0xBF] + Array("tables:\n".utf8), file: "schema.yaml") == "tables:\n")
    }
}
