import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// The package root, found from this file so tests run from any directory.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A fixed stamp so generated migration file names are reproducible.
let fixedStamp: @Sendable () -> String = { "20261130090000" }

func parse(_ yaml: String) throws -> ParsedSchema {
    try SchemaParser.parse(yaml, file: "schema.yaml")
}

/// Runs the pipeline in memory, as `generate` would on a Generated/ holding `existing`.
func generate(_ yaml: String, existing: GeneratedTree = GeneratedTree()) throws -> Generator.Output {
    try Generator(templates: TemplateSet(directory: nil), stamp: fixedStamp).generate(parse(yaml), existing: existing)
}

/// A scratch project folder: schema.yaml and Generated/, removed when the test ends.
final class ScratchProject {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hope-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var schemaPath: String { root.appendingPathComponent("schema.yaml").path }
    var generatedURL: URL { root.appendingPathComponent("Generated") }

    func writeSchema(_ yaml: String) throws {
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: schemaPath))
    }

    func generatedTree() throws -> GeneratedTree {
        try GeneratedTree.read(from: generatedURL)
    }

    /// Runs `generate` in-process with these arguments after `--schema`.
    func run(_ arguments: String...) -> CommandResult {
        let (console, transcript) = GenerateCommand.Console.recording()
        let status = GenerateCommand(console: console, stamp: fixedStamp).run(["--schema", schemaPath] + arguments)
        return CommandResult(status: status, out: transcript.out, error: transcript.error)
    }
}

struct CommandResult {
    let status: Int32
    let out: String
    let error: String
}
