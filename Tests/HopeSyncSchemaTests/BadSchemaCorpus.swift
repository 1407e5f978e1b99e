import Foundation
import Testing

/// One file of Tests/HopeSyncSchemaTests/BadSchemas: a schema that must be refused, and the exact
/// diagnostics it must be refused with.
///
/// The format is shared with the generator's tests, which run `generate` on every file and
/// check that Generated/ stays untouched: `NN_short_name.yaml`, starting with one line
/// `# expect: <diagnostic>` per expected diagnostic (the full `file:line:col: error: ...; hint: ...`
/// text, with `schema.yaml` as the file name), in source order. The expect lines are part of the
/// file, so line numbers count them.
struct BadSchema: Sendable, CustomTestStringConvertible {
    static let expectPrefix = "# expect: "
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("BadSchemas")

    var fileName: String
    var source: String
    var expected: [String]

    var testDescription: String { fileName }

    init(fileName: String, source: String) {
        self.fileName = fileName
        self.source = source
        self.expected = source.split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix(Self.expectPrefix) }
            .map { String($0.dropFirst(Self.expectPrefix.count)) }
    }

    /// Every file in the folder, by name.
    static func all() throws -> [BadSchema] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".yaml") }
            .sorted()
            .map { BadSchema(fileName: $0, source: try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) }
    }
}
