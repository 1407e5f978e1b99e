import Foundation

/// The templates one run renders with: the user's copies from a directory (Templates/ beside
/// schema.yaml, or `--templates DIR`), each falling back to the built-in default of the same
/// name, so a user can override one file and keep the rest.
public struct TemplateSet: Sendable {
    /// Where the user's templates are looked for; nil means built-in defaults only.
    package let directory: URL?
    private let cache: [String: Template]

    /// The names of every template the renderers use, relative to the template directory.
    public static let builtInNames: [String] = BuiltInTemplates.sources.keys.sorted()

    /// Loads and parses every template once: a template with a syntax error fails the run
    /// before anything is rendered.
    public init(directory: URL?) throws {
        self.directory = directory
        var cache: [String: Template] = [:]
        for name in Self.builtInNames {
            cache[name] = try Template(name: name, source: Self.source(named: name, in: directory))
        }
        self.cache = cache
    }

    package func template(_ name: String) throws -> Template {
        guard let template = cache[name] else {
            throw TemplateError(template: name, line: 0, message: "no such template")
        }
        return template
    }

    package func render(_ name: String, _ context: TemplateValue) throws -> String {
        try template(name).render(context)
    }

    /// Renders the template a context is for: the one place typed contexts become values.
    func render<Context: TemplateContext>(_ context: Context) throws -> String {
        try render(Context.template, context.templateValue)
    }

    /// The built-in default text of a template (what `generate --init-templates` writes).
    public static func builtInSource(named name: String) throws -> String {
        guard let source = BuiltInTemplates.sources[name] else {
            throw TemplateError(template: name, line: 0, message: "no such built-in template")
        }
        return source
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
