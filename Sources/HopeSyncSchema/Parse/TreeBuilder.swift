/// Assembles nodes from libyaml's start/end events with an explicit stack, so a deeply nested
/// file cannot exhaust the call stack. Frames are mutated in place: no array is copied.
struct TreeBuilder {
    private struct Frame {
        var mark: YAMLMark
        var isMapping: Bool
        var items: [YAMLNode] = []
        var entries: [YAMLEntry] = []
        /// A mapping's key, read and waiting for its value.
        var pendingKey: YAMLNode?
    }

    private(set) var root: YAMLNode?
    private(set) var log: DiagnosticLog
    private var stack: [Frame] = []

    /// How many sequences and mappings are open.
    var depth: Int { stack.count }

    init(log: DiagnosticLog) {
        self.log = log
    }

    mutating func openSequence(at mark: YAMLMark) {
        stack.append(Frame(mark: mark, isMapping: false))
    }

    mutating func openMapping(at mark: YAMLMark) {
        stack.append(Frame(mark: mark, isMapping: true))
    }

    mutating func close() {
        guard let frame = stack.popLast() else { return }
        add(YAMLNode(content: frame.isMapping ? .mapping(frame.entries) : .sequence(frame.items), mark: frame.mark))
    }

    mutating func add(_ node: YAMLNode) {
        let top = stack.count - 1
        guard top >= 0 else {
            if root == nil { root = node }
            return
        }
        guard stack[top].isMapping else {
            stack[top].items.append(node)
            return
        }
        guard let key = stack[top].pendingKey else {
            stack[top].pendingKey = node
            return
        }
        stack[top].pendingKey = nil
        if let entry = entry(key: key, value: node, in: stack[top].entries) {
            stack[top].entries.append(entry)
        }
    }

    /// The entry to keep, or nil after saying why it is dropped.
    private mutating func entry(key: YAMLNode, value: YAMLNode, in entries: [YAMLEntry]) -> YAMLEntry? {
        guard let scalar = key.scalar else {
            log.error(
                key.mark, "a mapping key must be a plain name, found \(key.kindDescription)",
                hint: "write the key as a single word followed by ':'")
            return nil
        }
        if let first = entries.first(where: { $0.key == scalar.text }) {
            log.error(
                key.mark, "duplicate key '\(scalar.text.abbreviated)' in \(path)",
                hint:
                    "'\(scalar.text.abbreviated)' is already defined at line \(first.keyMark.line); each key may appear once, so remove or rename one"
            )
            return nil
        }
        return YAMLEntry(key: scalar.text, keyMark: key.mark, value: value)
    }

    /// Where the innermost open mapping sits, such as `tables.sessions.columns`.
    private var path: String {
        var path = ""
        for frame in stack.dropLast() {
            if !frame.isMapping {
                path += "[\(frame.items.count)]"
            } else if let key = frame.pendingKey {
                path += (path.isEmpty ? "" : ".") + (key.scalar?.text ?? "?")
            }
        }
        return path.isEmpty ? "the top-level mapping" : path
    }
}
