enum TemplateToken {
    case text(String)
    case tag(kind: Character?, name: String, line: Int)
    /// `{{> name}}`; `indentation` is the whitespace before it when it stands alone on its line.
    case partial(name: String, indentation: String, line: Int)
}

enum TemplateLexer {
    /// Splits the source into text and tags, dropping lines that hold only a block tag, a
    /// comment or a partial (Mustache's "standalone" rule): such a partial is the lines it
    /// renders, each indented as the tag was.
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
                    kind == "#" || kind == "^" || kind == "/" || kind == "!" || kind == ">"
                }
            if standalone {
                let indentation = line.prefix { $0 == " " || $0 == "\t" }
                for case .tag(let kind, let name, let line) in pieces {
                    tokens.append(
                        kind == ">"
                            ? .partial(name: name, indentation: String(indentation), line: line) : .tag(kind: kind, name: name, line: line))
                }
            } else {
                for piece in pieces {
                    if case .tag(">", let name, let line) = piece {
                        tokens.append(.partial(name: name, indentation: "", line: line))
                    } else {
                        tokens.append(piece)
                    }
                }
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
            if let first = body.first, "#^/!>".contains(first) {
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

struct TemplateParser {
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
            case .partial(let partial, let indentation, let line):
                guard !partial.isEmpty else { throw TemplateError(template: name, line: line, message: "a partial needs a name") }
                nodes.append(.partial(Template.Partial(name: partial, indentation: indentation, line: line)))
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
