/// The small readers every level shares: a mapping, a list, a bool, a name, and the check
/// that a mapping holds only known keys.
extension SchemaReader {
    mutating func mapping(_ node: YAMLNode, expected: @autoclosure () -> String, hint: @autoclosure () -> String) -> [YAMLEntry]? {
        if let entries = node.mapping { return entries }
        log.error(node.mark, "expected \(expected()), found \(node.kindDescription)", hint: hint())
        return nil
    }

    mutating func sequence(_ node: YAMLNode, expected: @autoclosure () -> String, hint: @autoclosure () -> String) -> [YAMLNode]? {
        if let items = node.sequence { return items }
        log.error(node.mark, "expected \(expected()), found \(node.kindDescription)", hint: hint())
        return nil
    }

    /// Unquoted true or false only: a quoted "true" is a string.
    mutating func bool(_ node: YAMLNode, for key: String) -> Bool? {
        if case .bool(let value) = node.scalar?.value { return value }
        log.error(
            node.mark, "expected true or false for '\(key)', found \(node.kindDescription)",
            hint: node.quotedBool.map { "write \($0) without quotes" } ?? "write '\(key): true' or '\(key): false'")
        return nil
    }

    /// A scalar that YAML reads as a string, quoted or not.
    mutating func string(_ node: YAMLNode, for key: String, hint: @autoclosure () -> String) -> String? {
        if case .string(let text) = node.scalar?.value { return text }
        log.error(node.mark, "expected a name for '\(key)', found \(node.kindDescription)", hint: hint())
        return nil
    }

    /// Logs every key outside `allowed`, with the closest known key as a hint. `context` says
    /// where, such as "in column 'note'".
    ///
    /// Messages and hints are autoclosures here: they are built for every node read but
    /// needed only for the few that are wrong.
    mutating func rejectUnknownKeys(_ entries: [YAMLEntry], allowed: [String], in context: @autoclosure () -> String) {
        for entry in entries where !allowed.contains(entry.key) {
            log.error(
                entry.keyMark, "unknown key '\(entry.key.abbreviated)' \(context())",
                hint: Suggestion.hint(for: entry.key, among: allowed, listing: "the keys allowed here are"))
        }
    }

    /// True when an unknown key in `entries` is most likely a misspelt `key`.
    func hasMisspelling(of key: String, in entries: [YAMLEntry], allowed: [String]) -> Bool {
        entries.contains { !allowed.contains($0.key) && Suggestion.closest(to: $0.key, among: allowed) == key }
    }

    /// Logs why `name` cannot name a `kind`; true when it can.
    @discardableResult
    mutating func checkName(_ name: String, as kind: NameKind, at mark: YAMLMark) -> Bool {
        guard let problem = Identifier.problem(with: name, as: kind) else { return true }
        log.error(mark, problem.message, hint: problem.hint)
        return false
    }
}
