import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-sync [generate's options]`:
/// runs `generate` on the package's schema.yaml, writing Generated/ beside it. Without
/// `--schema`, the schema is `schema.yaml` at the package's root.
@main
struct GenerateSyncCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        // `generate`, named by its target as a plugin's tool is.
        let generate = try context.tool(named: "HopeSyncGenerate")
        var arguments = arguments
        if !arguments.contains("--schema") {
            let schema = context.package.directoryURL.appendingPathComponent("schema.yaml")
            guard FileManager.default.fileExists(atPath: schema.path) else {
                throw PluginFailure("no schema.yaml at \(schema.path); pass --schema PATH")
            }
            arguments = ["--schema", schema.path] + arguments
        }
        let process = Process()
        process.executableURL = generate.url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw PluginFailure("generate failed (exit \(process.terminationStatus)); its messages are above")
        }
    }
}

struct PluginFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
