import Foundation
import Testing

/// The runtime's folders are layers: Model <- Store <- Conflicts <- Engine <- Client, Transport
/// and Realtime on the model alone, and Client (the app's one entry point) over all of them (docs/ARCHITECTURE.md). One module keeps the API in one import, so the
/// compiler cannot hold the line; this test does. A file may name what its own layer and the
/// layers below declare, never a type or function declared only above it.
struct LayeringTests {
    /// Each layer with the layers it may use.
    static let layers: [(folder: String, mayUse: [String])] = [
        ("Model", []),
        ("Store", ["Model"]),
        ("Conflicts", ["Model", "Store"]),
        ("Engine", ["Model", "Store", "Conflicts"]),
        ("Transport", ["Model"]),
        ("Realtime", ["Model"]),
        ("Client", ["Model", "Store", "Conflicts", "Engine", "Transport", "Realtime"]),
    ]

    @Test func everyFileNamesOnlyItsOwnLayerAndTheLayersBelow() throws {
        let declared = try Dictionary(
            uniqueKeysWithValues: Self.layers.map { layer in
                (
                    layer.folder,
                    try Self.sources(in: layer.folder).reduce(into: Set<String>()) { names, source in
                        names.formUnion(Self.declaredNames(in: source.text))
                    }
                )
            })
        // The shared vocabulary (HopeSyncModel) is below every layer.
        let vocabulary = try Self.sources(in: "../HopeSyncModel").reduce(into: Set<String>()) {
            $0.formUnion(Self.declaredNames(in: $1.text))
        }
        var crossings: [String] = []
        for layer in Self.layers {
            let allowed = ([layer.folder] + layer.mayUse).reduce(into: vocabulary) { $0.formUnion(declared[$1] ?? []) }
            let forbidden = Self.layers.map(\.folder).filter { !([layer.folder] + layer.mayUse).contains($0) }
                .reduce(into: Set<String>()) { $0.formUnion(declared[$1] ?? []) }
                .subtracting(allowed)
            for source in try Self.sources(in: layer.folder) {
                let used = Self.usedNames(in: source.text).intersection(forbidden)
                crossings += used.sorted().map { "\(source.path) uses \($0), declared above \(layer.folder)" }
            }
        }
        #expect(crossings.isEmpty, "\(crossings.joined(separator: "\n"))")
    }

    @Test func onlyTheStoreAndTheLayersAboveItOpenSQLite() throws {
        for folder in ["Model", "Transport", "Realtime"] {
            for source in try Self.sources(in: folder) {
                #expect(!source.text.contains("import HopeSyncSQLite"), "\(source.path) imports HopeSyncSQLite, which is the store's")
            }
        }
    }

    @Test func theCheckSeesACrossing() {
        let above = Self.declaredNames(in: "struct MutationQueue {}\nfunc queueUpdate() {}")
        let used = Self.usedNames(
            in: Self.code(of: "let q = MutationQueue() // MutationQueue\nlet s = \"queueUpdate(\"\ntry q.queueUpdate()"))
        #expect(above.intersection(used) == ["MutationQueue", "queueUpdate"])
        #expect(
            Self.usedNames(in: Self.code(of: "/// MutationQueue\nlet x = \"MutationQueue\"\nlet y = \"\"\"\n    queueUpdate()\n    \"\"\""))
                .isDisjoint(with: above))
    }

    // MARK: Reading the sources

    static let runtime = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/HopeSync")

    static func sources(in folder: String) throws -> [(path: String, text: String)] {
        let root = runtime.appendingPathComponent(folder)
        guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        return try files.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.map { url in
            (String(url.path.dropFirst(runtime.path.count + 1)), Self.code(of: try String(contentsOf: url, encoding: .utf8)))
        }
    }

    /// Types, functions, static members and enum cases a file declares.
    static func declaredNames(in code: String) -> Set<String> {
        let pattern = #/\b(?:struct|enum|class|actor|protocol|typealias|func|static let|static var|case)\s+(\w+)/#
        return Set(code.matches(of: pattern.wordBoundaryKind(.simple)).map { String($0.output.1) })
    }

    /// The standard library's calls that share a name with a runtime function.
    static let standardCalls: Set<String> = ["next", "finish"]

    /// Types named anywhere, functions where they are called.
    static func usedNames(in code: String) -> Set<String> {
        let types = code.matches(of: #/\b[A-Z]\w*/#.wordBoundaryKind(.simple)).map { String($0.output) }
        let calls = code.matches(of: #/\b([a-z_]\w*)\(/#.wordBoundaryKind(.simple)).map { String($0.output.1) }
        return Set(types + calls).subtracting(standardCalls)
    }

    /// The code without comments and string literals (SQL included), so a name in prose or in a
    /// query is not a use.
    static func code(of text: String) -> String {
        var result = ""
        var inMultilineString = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.contains("\"\"\"") {
                inMultilineString.toggle()
                if line.components(separatedBy: "\"\"\"").count == 3 { inMultilineString.toggle() }
                continue
            }
            if inMultilineString { continue }
            var code = Substring(line.replacing(#/"(?:[^"\\]|\\.)*"/#, with: "\"\""))
            if let comment = code.range(of: "//") { code = code[..<comment.lowerBound] }
            result += code + "\n"
        }
        return result
    }
}
