/// Assembles nodes from libyaml's start/end events with an explicit stack, so a deeply nested
/// file cannot exhaust the call stack.
struct TreeBuilder {
    enum Frame {
        case sequence(YAMLMark, [YAMLNode])
        case mapping(YAMLMark, [YAMLEntry], pendingKey: YAMLNode?)
    }

    private(set) var root: YAMLNode?
    private(set) var log: DiagnosticLog
    private var stack: [Frame] = []

    init(log: DiagnosticLog) {
        self.log = log
    }

    mutating func open(_ frame: Frame) {
        stack.append(frame)
    }

    mutating func close() {
        guard let frame = stack.popLast() else { return }
        switch frame {
        case .sequence(let mark, let items):
            add(YAMLNode(content: .sequence(items), mark: mark))
        case .mapping(let mark, let entries, _):
            add(YAMLNode(content: .mapping(entries), mark: mark))
        }
    }

    mutating func add(_ node: YAMLNode) {
        guard let top = stack.popLast() else {
            if root == nil { root = node }
            return
        }
        switch top {
        case .sequence(let mark, var items):
            items.append(node)
            stack.append(.sequence(mark, items))
        case .mapping(let mark, let entries, pendingKey: nil):
            stack.append(.mapping(mark, entries, pendingKey: node))
        case .mapping(let mark, var entries, pendingKey: let key?):
            if let entry = entry(key: key, value: node, after: entries) { entries.append(entry) }
            stack.append(.mapping(mark, entries, pendingKey: nil))
        }
    }

    /// The entry to keep, or nil after saying why it is dropped.
    private mutating func entry(key: YAMLNode, value: YAMLNode, after entries: [YAMLEntry]) -> YAMLEntry? {
        guard let scalar = key.scalar else {
            log.error(key.mark, "a mapping key must be a plain name, found \(key.kindDescription)", hint: "write the key as a single word followed by ':'")
            return nil
        }
        if let first = entries.first(where: { $0.key == scalar.text }) {
            log.error(
                key.mark, "duplicate key '\(scalar.text.abbreviated)' in \(path)",
                hint: "'\(scalar.text.abbreviated)' is already defined at line \(first.keyMark.line); each key may appear once, so remove or rename one")
            return nil
        }
        return YAMLEntry(key: scalar.text, keyMark: key.mark, value: value)
    }

    /// Where the innermost open mapping sits, such as `tables.sessions.columns`.
    private var path: String {
        var parts: [String] = []
        for frame in stack {
            switch frame {
            case .sequence(_, let items): parts.append("[\(items.count)]")
            case .mapping(_, _, let key?): parts.append(key.scalar?.text ?? "?")
            case .mapping(_, _, pendingKey: nil): break
            }
        }
        guard !parts.isEmpty else { return "the top-level mapping" }
        return parts.dropFirst().reduce(parts[0]) { $1.hasPrefix("[") ? $0 + $1 : $0 + "." + $1 }
    }
}
