/// A small logic-less template language, a subset of Mustache, so the generated files' text
/// lives in Templates/ where users can change it:
///
/// - `{{name}}`, `{{a.b}}`, `{{.}}`: a value, inserted as is (no escaping: the renderers make
///   every value safe for its target language before it gets here).
/// - `{{#name}}…{{/name}}`: once per element of a list, once for true or a non-empty text,
///   never for false, an empty list or a missing name. `{{^name}}…{{/name}}` inverts it.
/// - Inside a list: `@first`, `@last`, `@index` (from 0).
/// - `{{! comment }}`.
/// A line holding only a section tag or a comment disappears entirely, so templates can be
/// laid out readably. An unknown name is an error, never an empty string: a typo in a template
/// must not silently produce wrong SQL.
package struct Template: Sendable {
    package let name: String
    let nodes: [Node]

    indirect enum Node: Sendable {
        case text(String)
        case variable(Path, line: Int)
        case section(Path, inverted: Bool, [Node], line: Int)
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

    package init(name: String, source: String) throws(TemplateError) {
        self.name = name
        var parser = TemplateParser(name: name, tokens: TemplateLexer.tokens(in: source))
        self.nodes = try parser.parseAll()
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

/// The data a template renders: built by a renderer from the model.
package enum TemplateValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case text(String)
    case bool(Bool)
    case list([TemplateValue])
    case object([String: TemplateValue])
    /// Where a list's element stands: answers `@first`, `@last` and `@index`.
    case position(index: Int, count: Int)

    package init(stringLiteral value: String) { self = .text(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }
    package init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    var isTruthy: Bool {
        switch self {
        case .text(let text): !text.isEmpty
        case .bool(let flag): flag
        case .list(let items): !items.isEmpty
        case .object, .position: true
        }
    }

    var text: String? {
        switch self {
        case .text(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .list, .object, .position: nil
        }
    }

    func field(_ name: String) -> TemplateValue? {
        switch self {
        case .object(let fields):
            return fields[name]
        case .position(let index, let count):
            switch name {
            case "@first": return .bool(index == 0)
            case "@last": return .bool(index == count - 1)
            case "@index": return .text(String(index))
            default: return nil
            }
        default:
            return nil
        }
    }
}

public struct TemplateError: Error, Equatable, CustomStringConvertible {
    public let template: String
    public let line: Int
    public let message: String

    public var description: String { "\(template):\(line): error: \(message)" }
}

// MARK: - Lexing and parsing

private enum TemplateToken {
    case text(String)
    case tag(kind: Character?, name: String, line: Int)
}

private enum TemplateLexer {
    /// Splits the source into text and tags, dropping lines that hold only a block tag or a
    /// comment (Mustache's "standalone" rule).
    static func tokens(in source: String) -> [TemplateToken] {
        var tokens: [TemplateToken] = []
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, line) in lines.enumerated() {
            let lineNumber = offset + 1
            let newline = offset < lines.count - 1 ? "\n" : ""
            let pieces = split(line, line: lineNumber)
            let tags = pieces.compactMap { piece -> Character?? in
                if case .tag(let kind, _, _) = piece { return .some(kind) }
                return nil
            }
            let onlyBlank = pieces.allSatisfy { piece in
                if case .text(let text) = piece { return text.allSatisfy { $0 == " " || $0 == "\t" } }
                return true
            }
            let standalone =
                tags.count == 1 && onlyBlank
                && tags.allSatisfy { kind in
                    kind == "#" || kind == "^" || kind == "/" || kind == "!"
                }
            if standalone {
                tokens += pieces.filter { if case .tag = $0 { return true } else { return false } }
            } else {
                tokens += pieces
                tokens.append(.text(newline))
            }
        }
        return tokens
    }

    private static func split(_ line: Substring, line number: Int) -> [TemplateToken] {
        var pieces: [TemplateToken] = []
        var rest = line[...]
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                pieces.append(.text(String(rest[open.lowerBound...])))
                return pieces
            }
            var body = rest[open.upperBound..<close.lowerBound].trimmingSpaces()
            var kind: Character?
            if let first = body.first, "#^/!".contains(first) {
                kind = first
                body = body.dropFirst().trimmingSpaces()
            }
            pieces.append(.tag(kind: kind, name: String(body), line: number))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        return pieces
    }
}

private struct TemplateParser {
    let name: String
    let tokens: [TemplateToken]
    var position = 0

    init(name: String, tokens: [TemplateToken]) {
        self.name = name
        self.tokens = tokens
    }

    mutating func parseAll() throws(TemplateError) -> [Template.Node] {
        let nodes = try parse(until: nil)
        return nodes
    }

    private mutating func parse(until closing: (name: String, line: Int)?) throws(TemplateError) -> [Template.Node] {
        var nodes: [Template.Node] = []
        while position < tokens.count {
            let token = tokens[position]
            position += 1
            switch token {
            case .text(let text):
                if !text.isEmpty { nodes.append(.text(text)) }
            case .tag(let kind, let tagName, let line):
                switch kind {
                case "!":
                    continue
                case "#", "^":
                    let children = try parse(until: (tagName, line))
                    nodes.append(.section(Template.Path(tagName), inverted: kind == "^", children, line: line))
                case "/":
                    guard let closing, closing.name == tagName else {
                        throw TemplateError(template: name, line: line, message: "'{{/\(tagName)}}' closes no open section")
                    }
                    return nodes
                default:
                    guard !tagName.isEmpty else {
                        throw TemplateError(template: name, line: line, message: "empty tag")
                    }
                    nodes.append(.variable(Template.Path(tagName), line: line))
                }
            }
        }
        if let closing {
            throw TemplateError(template: name, line: closing.line, message: "section '\(closing.name)' is never closed")
        }
        return nodes
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while result.first == " " { result = result.dropFirst() }
        while result.last == " " { result = result.dropLast() }
        return result
    }
}
