import Foundation

/// The templates one run renders with: the user's copies from a directory (Templates/ beside
/// schema.yaml, or `--templates DIR`), each falling back to the built-in default of the same
/// name, so a user can override one file and keep the rest.
public struct TemplateSet: Sendable {
    /// Where the user's templates are looked for; nil means built-in defaults only.
    public let directory: URL?
    private let cache: [String: Template]

    /// The names of every template the renderers use, relative to the template directory.
    public static let builtInNames: [String] = {
        guard let root = builtInDirectory else { return [] }
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        var names: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "mustache" else { continue }
            names.append(String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)))
        }
        return names.sorted()
    }()

    static var builtInDirectory: URL? {
        Bundle.module.url(forResource: "DefaultTemplates", withExtension: nil)
    }

    /// Loads and parses every template once: a template with a syntax error fails the run
    /// before anything is rendered.
    public init(directory: URL?) throws {
        self.directory = directory
        var cache: [String: Template] = [:]
        for name in Self.builtInNames {
            let source = try Self.source(named: name, in: directory)
            do {
                cache[name] = try Template(name: name, source: source)
            } catch {
                throw error
            }
        }
        self.cache = cache
    }

    public func template(_ name: String) throws -> Template {
        guard let template = cache[name] else {
            throw TemplateError(template: name, line: 0, message: "no such template")
        }
        return template
    }

    public func render(_ name: String, _ context: TemplateValue) throws -> String {
        try template(name).render(context)
    }

    /// The built-in default text of a template (what `generate --init-templates` writes).
    public static func builtInSource(named name: String) throws -> String {
        guard let root = builtInDirectory else { throw CocoaError(.fileNoSuchFile) }
        return try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    private static func source(named name: String, in directory: URL?) throws -> String {
        if let directory {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path) {
                return try String(contentsOf: url, encoding: .utf8)
            }
        }
        return try builtInSource(named: name)
    }
}
