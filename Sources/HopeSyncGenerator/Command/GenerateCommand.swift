import Foundation
import HopeSyncGeneratorCore
import HopeSyncSchema

/// The `generate` command, callable in-process so tests see exactly what users see.
public struct GenerateCommand: Sendable {
    /// Exit codes follow sysexits where one fits.
    public enum ExitCode {
        public static let success: Int32 = 0
        public static let stale: Int32 = 1
        /// Bad usage, or a file or folder that cannot be read or written.
        public static let usage: Int32 = 2
        public static let invalidSchema: Int32 = 65
    }

    let console: Console
    let stamp: @Sendable () -> String

    public init(console: Console = .standard, stamp: @escaping @Sendable () -> String = Generator.currentStamp) {
        self.console = console
        self.stamp = stamp
    }

    public func run(_ arguments: [String]) -> Int32 {
        if arguments.first == "verify" {
            console.error(Self.verifyMoved(Array(arguments.dropFirst())))
            return ExitCode.usage
        }
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(arguments)
        } catch {
            console.error("error: \(error)\n\n\(CommandLineOptions.usage)")
            return ExitCode.usage
        }
        switch options.mode {
        case .help:
            console.out(CommandLineOptions.usage)
            return ExitCode.success
        case .initTemplates(let directory):
            return initTemplates(in: URL(fileURLWithPath: directory))
        case .write, .check:
            return generate(options)
        case .verify:
            // Only `generate-verify`'s arguments parse to it (VerifyCommand).
            return report(Failure(Self.verifyMoved(arguments), ExitCode.usage))
        }
    }

    private func generate(_ options: CommandLineOptions) -> Int32 {
        let parsed: ParsedSchema
        switch options.readSchema() {
        case .success(let value): parsed = value
        case .failure(let failure): return report(failure)
        }
        do {
            let templates = try TemplateSet(directory: options.templatesURL)
            let existing = try GeneratedTree.read(from: options.outputURL)
            let output = try Generator(templates: templates, stamp: stamp).generate(parsed, existing: existing)
            let writer = OutputWriter(directory: options.outputURL)
            let changes = writer.changes(from: existing, to: output.tree)
            // A migration nobody generated is an error in either folder: a local one would never
            // reach a device (the apps embed the snapshot's migrations), and a Supabase one would
            // change the server behind schema.sql, verify and the snapshot, which know nothing of it.
            for path in changes.foreign {
                console.error(Self.foreignMigrationError(path))
            }
            if !changes.foreign.isEmpty { return ExitCode.stale }
            if options.mode == .check {
                guard !changes.isEmpty else {
                    if let stampPath = options.stampPath { try writeStamp(to: stampPath, options) }
                    console.out("Generated/ is current.")
                    return ExitCode.success
                }
                if options.stampPath != nil {
                    // For a build log: the error and the fix first, then which files, no diff.
                    console.error(Self.staleForBuild(options))
                    let paths = changes.added + changes.modified + changes.removed
                    console.error("  stale: " + paths.sorted().map { "Generated/\($0)" }.joined(separator: ", "))
                    return ExitCode.stale
                }
                if let migration = output.newMigration {
                    console.out("pending migration: \(migration.fileStem) (schema.yaml changed since the last generate)")
                }
                console.out(writer.report(changes, existing: existing, generated: output.tree))
                console.out("Generated/ is stale: run `swift run generate` and commit the result.")
                return ExitCode.stale
            }
            try writer.write(changes, generated: output.tree)
            for path in changes.added { console.out("created Generated/\(path)") }
            for path in changes.modified { console.out("updated Generated/\(path)") }
            for path in changes.removed { console.out("removed Generated/\(path)") }
            if changes.isEmpty { console.out("Generated/ is current; nothing written.") }
            // A column nobody wrote in schema.yaml is said where the user looks, not only in the output.
            for note in parsed.schema.tables.compactMap(\.addedScopeColumnNote) { console.out("note: \(note)") }
            return ExitCode.success
        } catch let error as SchemaError {
            return report(Failure(error.description, ExitCode.invalidSchema))
        } catch let error as GeneratorError {
            return report(Failure(error.description, ExitCode.stale))
        } catch let error as TemplateError {
            return report(Failure(error.description, ExitCode.usage))
        } catch {
            return report(Failure("error: \(error)", ExitCode.stale))
        }
    }

    static func foreignMigrationError(_ path: String) -> String {
        if path.hasPrefix("sqlite/") {
            return
                "error: Generated/\(path) is not a migration generate made, and no device would run it; remove it and put the change in schema.yaml"
        }
        return
            "error: Generated/\(path) is not a migration generate made; `supabase db push` would run it on the server, but schema.sql, verify and the devices know nothing of it; remove it and put the change in schema.yaml (keep SQL of your own in a migrations folder outside Generated/)"
    }

    /// A build plugin's error: what is stale and the two commands that fix it.
    static func staleForBuild(_ options: CommandLineOptions) -> String {
        """
        \(options.outputURL.path): error: Generated/ is stale for \(options.schemaPath); \
        run `swift package --allow-writing-to-package-directory generate-sync` \
        (or `swift run generate`) in the package, then build again and commit Generated/
        """
    }

    /// The build plugin's output: a Swift file with nothing but a comment, so the check reruns
    /// only when schema.yaml or Generated/ changes.
    private func writeStamp(to path: String, _ options: CommandLineOptions) throws {
        let text = "// hope-sync: Generated/ was current for \(options.schemaURL.lastPathComponent) when this target was built.\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    private func initTemplates(in directory: URL) -> Int32 {
        do {
            for name in TemplateSet.builtInNames {
                let target = directory.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(TemplateSet.builtInSource(named: name).utf8).write(to: target)
                console.out("wrote \(target.path)")
            }
            return ExitCode.success
        } catch {
            // Like an unreadable schema, a folder it cannot write is the user's to fix: not "stale".
            return report(
                Failure(
                    "error: cannot write the templates into \(directory.path): \(error.localizedDescription)", ExitCode.usage))
        }
    }

    private func report(_ failure: Failure) -> Int32 {
        failure.report(on: console)
    }
}
