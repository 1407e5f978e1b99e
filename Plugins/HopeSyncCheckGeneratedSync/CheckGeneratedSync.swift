import Foundation
import PackagePlugin

/// Fails the build, with the command that fixes it, when the target's Generated/ is stale for
/// its schema.yaml. Apply it to the target whose sources are `Generated/swift`: the schema is the
/// nearest schema.yaml above the target's folder (within the package). The check is
/// `generate --check`; it reruns only when schema.yaml, Generated/ or Templates/ change.
@main
struct CheckGeneratedSync: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // The folder of the target's first Swift file (Generated/swift); Target.directoryURL
        // needs tools 6.1.
        guard let source = (target as? SourceModuleTarget)?.sourceFiles(withSuffix: "swift").first(where: { _ in true }) else {
            throw PluginFailure("CheckGeneratedSync: target \(target.name) has no Swift files; apply it to the target of Generated/swift")
        }
        let schema = try SchemaLocation.find(from: source.url.deletingLastPathComponent(), within: context.package.directoryURL)
        let stamp = context.pluginWorkDirectoryURL.appendingPathComponent("GeneratedIsCurrent.swift")
        // `generate`, named by its target as a plugin's tool is.
        return [
            .buildCommand(
                displayName: "hope-sync: checking Generated against \(schema.schema.lastPathComponent)",
                executable: try context.tool(named: "HopeSyncGenerate").url,
                arguments: ["--schema", schema.schema.path, "--check", "--stamp", stamp.path],
                inputFiles: [schema.schema] + schema.inputs(),
                outputFiles: [stamp]
            )
        ]
    }
}

/// schema.yaml and the folders generate reads beside it.
struct SchemaLocation {
    let schema: URL

    static func find(from directory: URL, within package: URL) throws -> SchemaLocation {
        var candidate = directory.standardizedFileURL
        let root = package.standardizedFileURL.path
        while true {
            let schema = candidate.appendingPathComponent("schema.yaml")
            if FileManager.default.fileExists(atPath: schema.path) { return SchemaLocation(schema: schema) }
            if candidate.path == root || candidate.path.count <= root.count { break }
            candidate = candidate.deletingLastPathComponent()
        }
        throw PluginFailure("CheckGeneratedSync: no schema.yaml in \(directory.path) or above it in the package")
    }

    /// Every file under Generated/ and Templates/ beside the schema.
    func inputs() -> [URL] {
        let beside = schema.deletingLastPathComponent()
        return ["Generated", "Templates"].flatMap { files(under: beside.appendingPathComponent($0)) }
    }

    private func files(under directory: URL) -> [URL] {
        guard let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return []
        }
        return walk.compactMap { $0 as? URL }.filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }
    }
}

struct PluginFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
