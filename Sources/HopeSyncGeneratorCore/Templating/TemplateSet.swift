import Foundation

/// The templates one run renders with: the user's copies from a directory (Templates/ beside
/// schema.yaml, or `--templates DIR`), each falling back to the built-in default of the same
/// name, so a user can override one file and keep the rest.
public struct TemplateSet: Sendable {
    /// Where the user's templates are looked for; nil means built-in defaults only.
    package let directory: URL?
    private let cache: [String: Template]

    /// The names of every built-in template (the ones the renderers use and their partials),
    /// relative to the template directory.
    public static let builtInNames: [String] = BuiltInTemplates.sources.keys.sorted()

    /// Loads and parses every template once, with its partials: a template with a syntax error,
    /// or a partial that is missing or includes itself, fails the run before anything is rendered.
    public init(directory: URL?) throws {
        self.directory = directory
        var cache: [String: Template] = [:]
        for name in Self.builtInNames {
            cache[name] = try Self.load(name, indentation: "", from: directory, including: [])
        }
        self.cache = cache
    }

    /// A template with its partials loaded as every template is (the user's copy, else the
    /// built-in one), each parsed with the indentation of its tag; `chain` is the templates
    /// that include this one.
    private static func load(_ name: String, indentation: String, from directory: URL?, including chain: [String]) throws -> Template {
        let template = try Template(name: name, source: indented(source(named: name, in: directory), by: indentation))
        return try template.linked { partial in
            guard !chain.contains(partial.name), partial.name != name else {
                throw TemplateError(template: name, line: partial.line, message: "'{{> \(partial.name)}}' includes itself")
            }
            guard BuiltInTemplates.sources[partial.name] != nil || userFile(partial.name, in: directory) != nil else {
                throw TemplateError(template: name, line: partial.line, message: "no template '\(partial.name)' to include")
            }
            return try load(partial.name, indentation: partial.indentation, from: directory, including: chain + [name])
        }
    }

    /// Every line but a blank one starts with `indentation`, so a blank line gets no trailing
    /// whitespace.
    private static func indented(_ source: String, by indentation: String) -> String {
        guard !indentation.isEmpty else { return source }
        return source.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : indentation + $0 }.joined(
            separator: "\n")
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
        if let url = userFile(name, in: directory) {
            return try String(contentsOf: url, encoding: .utf8)
        }
        return try builtInSource(named: name)
    }

    private static func userFile(_ name: String, in directory: URL?) -> URL? {
        guard let url = directory?.appendingPathComponent(name), FileManager.default.fileExists(atPath: url.path) else { return nil }
        return url
    }
}
