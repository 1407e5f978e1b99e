import Foundation
import Testing

@testable import HopeSyncGeneratorCore

/// The built-in templates are compiled into `generate` (BuiltInTemplates.swift), so an
/// installed binary needs no files beside it. Templates/ is their source; this test fails when
/// the two differ, and `RECORD_BUILTIN_TEMPLATES=1 swift test --filter BuiltInTemplatesTests`
/// rewrites the Swift file from Templates/.
@Suite struct BuiltInTemplatesTests {
    static let templates = packageRoot.appendingPathComponent("Templates")
    static let source = packageRoot.appendingPathComponent("Sources/HopeSyncGeneratorCore/Templating/BuiltInTemplates.swift")

    @Test func theCompiledTemplatesEqualTemplatesFolder() throws {
        let files = try Self.templateFiles()
        if ProcessInfo.processInfo.environment["RECORD_BUILTIN_TEMPLATES"] == "1" {
            try Data(Self.render(files).utf8).write(to: Self.source)
        }
        let fix = "run `RECORD_BUILTIN_TEMPLATES=1 swift test --filter BuiltInTemplatesTests`, then build again"
        #expect(Set(BuiltInTemplates.sources.keys) == Set(files.keys), "Templates/ and the compiled templates list different files; \(fix)")
        for (name, text) in files {
            #expect(BuiltInTemplates.sources[name] == text, "Templates/\(name) differs from the compiled copy; \(fix)")
        }
    }

    static func templateFiles() throws -> [String: String] {
        var files: [String: String] = [:]
        let root = templates.standardizedFileURL.path
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".mustache") else { continue }
            files[relative] = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
        }
        return files
    }

    static func render(_ files: [String: String]) -> String {
        var output = """
            // Generated from Templates/ by `RECORD_BUILTIN_TEMPLATES=1 swift test --filter BuiltInTemplatesTests`.
            // Do not edit: edit Templates/ and record again.

            /// The default templates, compiled in so `generate` works wherever it is installed.
            enum BuiltInTemplates {
                static let sources: [String: String] = [

            """
        for name in files.keys.sorted() {
            output += "        \"\(name)\": \(SwiftNames.rawMultilineLiteral(files[name]!, indent: "            ")),\n"
        }
        output += "    ]\n}\n"
        return output
    }
}
