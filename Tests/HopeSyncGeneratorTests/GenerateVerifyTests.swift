import Foundation
import HopeSyncGenerator
import HopeSyncTestSupport
import Testing

/// `verify` is `generate-verify`, a product of its own, so that `generate` and its plugins link
/// no libpq (ModuleGraphTests holds the package to it). `generate verify …` still answers: the
/// executable runs `generate-verify` when it sits beside it, and otherwise says what to run.
@Suite struct GenerateVerifyTests {
    @Test func generateVerifySaysWhatToRunWithoutTheDatabaseURL() {
        let (console, transcript) = GenerateCommand.Console.recording()
        let status = GenerateCommand(console: console).run([
            "verify", "--database-url", "postgresql://me:hunter2secret@db.internal/app", "--schema", "my app/schema.yaml",
        ])
        #expect(status == GenerateCommand.ExitCode.usage)
        #expect(
            transcript.error
                == "error: verify is a command of its own, so that generate needs no libpq: run "
                + "`swift run generate-verify --database-url URL --schema 'my app/schema.yaml'` (URL: the connection string you gave)")
        #expect(transcript.out.isEmpty)
    }

    @Test func theVerifyExecutableIsTheOneBesideGenerate() throws {
        let files = FileManager.default
        let folder = files.temporaryDirectory.appendingPathComponent("generate-verify-\(UUID().uuidString)")
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try files.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? files.removeItem(at: folder) }
        let generate = folder.appendingPathComponent("generate")
        let verify = folder.appendingPathComponent("generate-verify")
        try Data("#!/bin/sh\n".utf8).write(to: generate)
        #expect(GenerateCommand.verifyExecutable(beside: generate) == nil)
        try Data("#!/bin/sh\n".utf8).write(to: verify)
        #expect(GenerateCommand.verifyExecutable(beside: generate) == nil, "found a file that is not executable")
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: verify.path)
        #expect(GenerateCommand.verifyExecutable(beside: generate)?.path == verify.path)
        // A link to generate finds the one beside the binary it links to.
        let link = elsewhere.appendingPathComponent("generate")
        try files.createSymbolicLink(at: link, withDestinationURL: generate)
        #expect(GenerateCommand.verifyExecutable(beside: link)?.resolvingSymlinksInPath().path == verify.resolvingSymlinksInPath().path)
    }

    /// The built executables, as users run them (`swift test` builds both beside the tests).
    @Test func theGenerateExecutableRunsGenerateVerifyBesideItElseSaysWhatToRun() throws {
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let generate = build.appendingPathComponent("generate")
        for tool in [generate, build.appendingPathComponent("generate-verify")] {
            try #require(FileManager.default.isExecutableFile(atPath: tool.path), "no \(tool.path) beside the tests")
        }
        let arguments = [
            "verify", "--database-url", "postgresql://me:hunter2secret@127.0.0.1:1/nowhere?connect_timeout=2",
            "--schema", packageRoot.appendingPathComponent("schema.yaml").path,
        ]
        let forwarded = try ProgramRun.execute(generate.path, arguments)
        #expect(forwarded.status == 2)
        #expect(forwarded.output.hasPrefix("error: cannot verify the database: cannot connect"), "\(forwarded.output)")
        #expect(!forwarded.output.contains("hunter2secret"))

        let alone = FileManager.default.temporaryDirectory.appendingPathComponent("generate-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: alone) }
        try FileManager.default.copyItem(at: generate, to: alone.appendingPathComponent("generate"))
        let unforwarded = try ProgramRun.execute(alone.appendingPathComponent("generate").path, arguments)
        #expect(unforwarded.status == 2)
        #expect(unforwarded.output.hasPrefix("error: verify is a command of its own"), "\(unforwarded.output)")
        #expect(unforwarded.output.contains("`swift run generate-verify --database-url URL --schema "))
        #expect(!unforwarded.output.contains("hunter2secret"))
    }
}
