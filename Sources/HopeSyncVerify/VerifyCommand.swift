import Foundation
import HopeSyncGenerator
import HopeSyncSchema

/// The `generate-verify` command (`generate verify` before it needed a product of its own),
/// callable in-process so tests see exactly what users see: the project's schema and
/// Generated/ against a live database, over libpq.
public struct VerifyCommand: Sendable {
    let console: GenerateCommand.Console

    public init(console: GenerateCommand.Console = .standard) {
        self.console = console
    }

    /// Runs with `generate-verify`'s arguments; returns the exit status.
    public func run(_ arguments: [String]) -> Int32 {
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(arguments, verifying: true)
        } catch {
            console.error("error: \(error)\n\n\(CommandLineOptions.verifyUsage)")
            return GenerateCommand.ExitCode.usage
        }
        guard case .verify(let databaseURL) = options.mode else {
            console.out(CommandLineOptions.verifyUsage)
            return GenerateCommand.ExitCode.success
        }
        let parsed: ParsedSchema
        switch options.readSchema() {
        case .success(let value): parsed = value
        case .failure(let failure): return failure.report(on: console)
        }
        let existing = (try? GeneratedTree.read(from: options.outputURL)) ?? GeneratedTree()
        let snapshot = existing[Snapshot.fileName].flatMap { try? Snapshot.decode($0) }
        let templates: TemplateSet
        do {
            templates = try TemplateSet(directory: options.templatesURL)
        } catch {
            return GenerateCommand.Failure("error: cannot load the templates: \(error)", GenerateCommand.ExitCode.usage).report(on: console)
        }
        let outcome = SchemaVerifier(renderer: SupabaseRenderer(templates: templates), deviceDays: options.deviceDays)
            // The server also holds the retired columns only the snapshot knows (decision 0052).
            .outcome(MigrationPlanner.carried(parsed.schema, from: snapshot, changes: []), snapshot: snapshot, databaseURL: databaseURL)
        if outcome.status == VerifyOutcome.unreachable {
            console.error(outcome.text)
        } else {
            console.out(outcome.text)
        }
        return outcome.status
    }
}
