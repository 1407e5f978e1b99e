import Foundation
import Testing

/// docs/ARCHITECTURE.md draws the package's modules and what each depends on, as SwiftPM reads
/// Package.swift (a Mermaid flowchart, which GitHub draws). The drawing is made from
/// `swift package dump-package`, never by hand; this test fails when it is stale, and
/// `RECORD_MODULE_GRAPH=1 swift test --filter ModuleGraphTests` draws it again.
@Suite struct ModuleGraphTests {
    static let architecture = SwiftPM.root.appendingPathComponent("docs/ARCHITECTURE.md")
    static let begin = "<!-- module graph: made by ModuleGraphTests from Package.swift -->"
    static let end = "<!-- end of module graph -->"

    /// `swift package dump-package`, once for the suite.
    static let package = Task { try await dumpPackage() }

    @Test func theModuleGraphInArchitectureIsCurrent() async throws {
        let graph = try ModuleGraph(package: try await Self.package.value)
        let drawing = Self.begin + "\n" + graph.mermaid + Self.end
        let text = try String(contentsOf: Self.architecture, encoding: .utf8)
        guard let start = text.range(of: Self.begin), let stop = text.range(of: Self.end, range: start.upperBound..<text.endIndex) else {
            Issue.record("docs/ARCHITECTURE.md has no module graph between \(Self.begin) and \(Self.end)")
            return
        }
        let current = String(text[start.lowerBound..<stop.upperBound])
        if ProcessInfo.processInfo.environment["RECORD_MODULE_GRAPH"] == "1" {
            try text.replacingCharacters(in: start.lowerBound..<stop.upperBound, with: drawing)
                .write(to: Self.architecture, atomically: true, encoding: .utf8)
            return
        }
        #expect(
            current == drawing,
            "the module graph in docs/ARCHITECTURE.md is stale for Package.swift; run `RECORD_MODULE_GRAPH=1 swift test --filter ModuleGraphTests`"
        )
    }

    /// Target names are global across a package graph: every module hope-sync declares, test
    /// targets included, carries its prefix, so an app's own modules (`SQLite`, `Locking`, …)
    /// never clash with them (HabitAppTests builds such an app). The example's generated module
    /// is `HopeSchema`.
    @Test func everyModuleCarriesHopeSyncsPrefix() async throws {
        let graph = try ModuleGraph(package: try await Self.package.value, includingTests: true)
        let unprefixed = graph.targets.map(\.name).filter {
            !$0.hasPrefix("HopeSync") && !$0.hasPrefix("CHopeSync") && $0 != "HopeSchema"
        }
        #expect(graph.targets.count > 20)
        #expect(unprefixed.isEmpty, "modules without the HopeSync prefix: \(unprefixed)")
    }

    /// `generate` (its run and `--check`) and both plugins need libyaml alone, so they build
    /// where PostgreSQL's client library is not installed; `generate-verify` is the one tool that
    /// links libpq. An app's runtime links SQLite alone.
    @Test func generateAndThePluginsLinkNoLibPQ() async throws {
        let graph = try ModuleGraph(package: try await Self.package.value)
        for product in ["generate", "GenerateSyncCommand", "CheckGeneratedSync"] {
            let linked = try #require(graph.modules(ofProduct: product), "no product \(product)")
            #expect(linked.contains("CHopeSyncYaml"), "\(product): \(linked.sorted())")
            #expect(!linked.contains("CHopeSyncLibPQ"), "\(product) links libpq: \(linked.sorted())")
        }
        #expect(graph.modules(ofProduct: "generate-verify")?.contains("CHopeSyncLibPQ") == true)
        let runtime = try #require(graph.modules(ofProduct: "HopeSync"))
        #expect(runtime.contains("CHopeSyncSQLite"))
        #expect(runtime.isDisjoint(with: ["CHopeSyncLibPQ", "CHopeSyncYaml"]), "\(runtime.sorted())")
    }

    /// `swift package dump-package`, in a scratch path of its own so it never waits for the
    /// build that runs these tests.
    static func dumpPackage() async throws -> Data {
        let scratch = SwiftPM.root.appendingPathComponent(".build/fixtures/dump-package")
        let result = try await execute("swift", ["package", "--scratch-path", scratch.path, "dump-package"], in: SwiftPM.root)
        guard result.status == 0 else { throw ModuleGraph.Failure(message: "dump-package failed: \(result.output)") }
        // Warnings may come before the JSON on the shared output.
        guard let start = result.output.firstIndex(of: "{") else { throw ModuleGraph.Failure(message: "no JSON from dump-package") }
        return Data(result.output[start...].utf8)
    }
}

/// The targets of a package and their dependencies on each other, in layers.
struct ModuleGraph {
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    struct Target {
        let name: String
        let kind: String
        let path: String?
        let dependencies: [String]
    }

    let targets: [Target]
    /// Each product's targets.
    let products: [String: [String]]

    init(package: Data, includingTests: Bool = false) throws {
        guard let root = try JSONSerialization.jsonObject(with: package) as? [String: Any],
            let targets = root["targets"] as? [[String: Any]]
        else { throw Failure(message: "dump-package's JSON has no targets") }
        let products = root["products"] as? [[String: Any]] ?? []
        self.products = Dictionary(
            products.compactMap { product in (product["name"] as? String).map { ($0, product["targets"] as? [String] ?? []) } },
            uniquingKeysWith: { first, _ in first })
        self.targets = targets.compactMap { target in
            guard let name = target["name"] as? String, let kind = target["type"] as? String, includingTests || kind != "test" else {
                return nil
            }
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                dependency.values.compactMap { ($0 as? [Any])?.first as? String }.first
            }
            return Target(name: name, kind: kind, path: target["path"] as? String, dependencies: dependencies)
        }
    }

    /// The layer a target is drawn in, from what it is and what it uses: a new module lands in
    /// its layer without this test being edited.
    func layer(of target: Target) -> String {
        if target.kind == "system" { return "C libraries" }
        if target.path?.hasPrefix("Tests/") == true || target.name.hasSuffix("TestSupport") { return "test support and fixtures" }
        if target.kind == "executable" || target.kind == "plugin" { return "tools" }
        let used = dependencies(of: target.name)
        if target.name == "HopeSync" || used.contains("HopeSync") { return "runtime" }
        if target.name == "HopeSyncSchema" || used.contains("HopeSyncSchema") { return "generator" }
        return "foundations"
    }

    /// Every target `name` uses, directly or not.
    func dependencies(of name: String) -> Set<String> {
        var seen: Set<String> = []
        var next = targets.first { $0.name == name }?.dependencies ?? []
        while let dependency = next.popLast() {
            guard seen.insert(dependency).inserted else { continue }
            next += targets.first { $0.name == dependency }?.dependencies ?? []
        }
        return seen
    }

    /// The modules a product builds: its targets and every target they use, directly or not.
    func modules(ofProduct product: String) -> Set<String>? {
        products[product].map { names in names.reduce(into: Set(names)) { $0.formUnion(dependencies(of: $1)) } }
    }

    static let layers = ["tools", "runtime", "generator", "foundations", "C libraries", "test support and fixtures"]

    /// A flowchart, arrows from a module to the modules it uses.
    var mermaid: String {
        func id(_ name: String) -> String { name.replacingOccurrences(of: "-", with: "_") }
        var lines = ["```mermaid", "flowchart TB"]
        for (index, layer) in Self.layers.enumerated() {
            let members = targets.filter { self.layer(of: $0) == layer }
            guard !members.isEmpty else { continue }
            lines.append("  subgraph layer\(index)[\"\(layer)\"]")
            for target in members { lines.append("    \(id(target.name))[\"\(target.name)\"]") }
            lines.append("  end")
        }
        for target in targets {
            for dependency in target.dependencies where targets.contains(where: { $0.name == dependency }) {
                lines.append("  \(id(target.name)) --> \(id(dependency))")
            }
        }
        lines.append("```")
        return lines.joined(separator: "\n") + "\n"
    }
}
