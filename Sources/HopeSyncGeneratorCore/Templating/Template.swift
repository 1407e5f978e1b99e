/// A small logic-less template language, a subset of Mustache, so the generated files' text
/// lives in Templates/ where users can change it:
///
/// - `{{name}}`, `{{a.b}}`, `{{.}}`: a value, inserted as is (no escaping: the renderers make
///   every value safe for its target language before it gets here).
/// - `{{#name}}…{{/name}}`: once per element of a list, once for true or a non-empty text,
///   never for false, an empty list or a missing name. `{{^name}}…{{/name}}` inverts it.
/// - Inside a list: `@first`, `@last`, `@index` (from 0).
/// - `{{> name}}`: the template of that name in the same ``TemplateSet``, rendered in place
///   with what is in scope there (a partial).
/// - `{{! comment }}`.
/// A line holding only a section tag, a comment or a partial disappears entirely, so templates
/// can be laid out readably; a partial standing alone indents each of its lines as its tag is.
/// An unknown name is an error, never an empty string: a typo in a template must not silently
/// produce wrong SQL.
package struct Template: Sendable {
    package let name: String
    private(set) var nodes: [Node]

    indirect enum Node: Sendable {
        case text(String)
        case variable(Path, line: Int)
        case section(Path, inverted: Bool, [Node], line: Int)
        case partial(Partial)
    }

    /// A name split once at parse time: rendering looks names up for every value it inserts.
    struct Path: Sendable {
        let text: String
        let parts: [String]

        init(_ text: String) {
            self.text = text
            self.parts = text == "." ? [] : text.split(separator: ".").map(String.init)
        }
    }

    /// `{{> name}}`, and the template it names once the set has loaded it (``linked(_:)``).
    struct Partial: Sendable {
        let name: String
        /// The whitespace before a tag that stands alone on its line.
        let indentation: String
        let line: Int
        var template: Template?
    }

    package init(name: String, source: String) throws(TemplateError) {
        self.name = name
        var parser = TemplateParser(name: name, tokens: TemplateLexer.tokens(in: source))
        self.nodes = try parser.parseAll()
    }

    /// The template with every partial loaded by `load`, which is given each `{{> …}}`.
    func linked<Failure: Error>(_ load: (Partial) throws(Failure) -> Template) throws(Failure) -> Template {
        func link(_ nodes: [Node]) throws(Failure) -> [Node] {
            var linked: [Node] = []
            for node in nodes {
                switch node {
                case .text, .variable: linked.append(node)
                case .section(let path, let inverted, let children, let line):
                    linked.append(.section(path, inverted: inverted, try link(children), line: line))
                case .partial(var partial):
                    partial.template = try load(partial)
                    linked.append(.partial(partial))
                }
            }
            return linked
        }
        var template = self
        template.nodes = try link(nodes)
        return template
    }

    package func render(_ context: TemplateValue) throws(TemplateError) -> String {
        var output = ""
        var stack = [context]
        try render(nodes, stack: &stack, into: &output)
        return output
    }

    private func render(_ nodes: [Node], stack: inout [TemplateValue], into output: inout String) throws(TemplateError) {
        for node in nodes {
            switch node {
            case .text(let text):
                output += text
            case .variable(let path, let line):
                guard let value = Self.lookup(path, in: stack) else {
                    throw TemplateError(template: name, line: line, message: "unknown name '\(path.text)'")
                }
                guard let text = value.text else {
                    throw TemplateError(template: name, line: line, message: "'\(path.text)' is a list or an object, not text")
                }
                output += text
            case .section(let path, let inverted, let children, _):
                let value = Self.lookup(path, in: stack)
                if inverted {
                    if !(value?.isTruthy ?? false) { try render(children, stack: &stack, into: &output) }
                    continue
                }
                guard let value, value.isTruthy else { continue }
                if case .list(let items) = value {
                    for (index, item) in items.enumerated() {
                        stack.append(.position(index: index, count: items.count))
                        stack.append(item)
                        defer { stack.removeLast(2) }
                        try render(children, stack: &stack, into: &output)
                    }
                } else {
                    stack.append(value)
                    defer { stack.removeLast() }
                    try render(children, stack: &stack, into: &output)
                }
            case .partial(let partial):
                guard let template = partial.template else {
                    throw TemplateError(template: name, line: partial.line, message: "partial '\(partial.name)' is not loaded")
                }
                // Its own name in its errors: a line number is the partial's.
                try template.render(template.nodes, stack: &stack, into: &output)
            }
        }
    }

    private static func lookup(_ path: Path, in stack: [TemplateValue]) -> TemplateValue? {
        guard let first = path.parts.first else { return stack.last }
        for frame in stack.reversed() {
            guard var value = frame.field(first) else { continue }
            for part in path.parts.dropFirst() {
                guard let next = value.field(part) else { return nil }
                value = next
            }
            return value
        }
        return nil
    }
}
