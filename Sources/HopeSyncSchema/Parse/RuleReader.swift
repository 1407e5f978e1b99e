/// A table's `rules:`. Each rule is a one-key mapping naming the rule, with its settings as
/// the value, so more rules can come without changing the shape.
extension SchemaReader {
    static let ruleNames = ["one_open_per_owner"]

    mutating func readRules(_ node: YAMLNode, table: String, columns: ColumnNames) -> [TableRule] {
        guard
            let items = sequence(node, expected: "a list of rules", hint: "write each rule as '- one_open_per_owner: { start: a, end: b }'")
        else { return [] }
        var rules: [TableRule] = []
        for item in items {
            guard let fields = mapping(item, expected: "a rule mapping", hint: "write '- one_open_per_owner: { start: a, end: b }'") else {
                continue
            }
            guard fields.count == 1, let rule = fields.first else {
                log.error(
                    item.mark, "a rule is a mapping with one key, found \(fields.count)", hint: "write each rule as its own '- ' item")
                continue
            }
            guard rule.key == "one_open_per_owner" else {
                log.error(
                    rule.keyMark, "unknown rule '\(rule.key.abbreviated)'",
                    hint: Suggestion.hint(for: rule.key, among: Self.ruleNames, listing: "the rules are"))
                continue
            }
            if rules.contains(where: { if case .oneOpenRowPerOwner = $0 { true } else { false } }) {
                log.error(
                    rule.keyMark, "table '\(table.abbreviated)' has a second one_open_per_owner rule",
                    hint: "a table has at most one; remove this one")
                continue
            }
            if let parsed = readOneOpenPerOwner(rule, table: table, columns: columns) { rules.append(parsed) }
        }
        return rules
    }

    private mutating func readOneOpenPerOwner(_ rule: YAMLEntry, table: String, columns: ColumnNames) -> TableRule? {
        let example = "write 'one_open_per_owner: { start: started_ms, end: ended_ms }'"
        guard let fields = mapping(rule.value, expected: "a mapping with 'start' and 'end'", hint: example) else { return nil }
        rejectUnknownKeys(fields, allowed: ["start", "end"], in: "in rule 'one_open_per_owner'")
        guard let startNode = fields["start"], let endNode = fields["end"] else {
            log.error(rule.keyMark, "rule 'one_open_per_owner' needs both 'start' and 'end'", hint: example)
            return nil
        }
        let start = ruleColumn(startNode, role: "start", table: table, columns: columns, mustBeNullable: false)
        let end = ruleColumn(endNode, role: "end", table: table, columns: columns, mustBeNullable: true)
        guard let start, let end else { return nil }
        guard start != end else {
            log.error(
                endNode.mark, "rule 'one_open_per_owner' uses '\(end)' as both start and end",
                hint: "end must be a column of its own, null while the row is open")
            return nil
        }
        return .oneOpenRowPerOwner(start: start, end: end)
    }

    /// A user column of type int: NOT NULL for the start, nullable for the end (a row is open
    /// while its end is null).
    private mutating func ruleColumn(_ node: YAMLNode, role: String, table: String, columns: ColumnNames, mustBeNullable: Bool) -> String? {
        guard let name = string(node, for: role, hint: "write the name of an int column of table '\(table)'") else { return nil }
        guard columns.declared.contains(name) else {
            let fitting = columns.parsed.filter { $0.type == .int && $0.isNullable == mustBeNullable }.map(\.name)
            let example = mustBeNullable ? "'ended_ms: int?'" : "'started_ms: int'"
            log.error(
                node.mark, "rule '\(role)' column '\(name.abbreviated)' is not a column of table '\(table.abbreviated)'",
                hint: fitting.isEmpty
                    ? "add \(mustBeNullable ? "a nullable" : "an") int column to the table, such as \(example)"
                    : Suggestion.hint(for: name, among: fitting, listing: "the columns that fit are"))
            return nil
        }
        // A column with an error of its own has been reported already.
        guard let column = columns.parsed.first(where: { $0.name == name }) else { return nil }
        if column.type != .int {
            log.error(
                node.mark, "rule '\(role)' column '\(name)' is \(column.type.keyword), not int",
                hint: "the rule compares times in milliseconds: make '\(name)' an int column")
            return nil
        }
        if column.isNullable != mustBeNullable {
            log.error(
                node.mark, mustBeNullable ? "rule 'end' column '\(name)' is not nullable" : "rule 'start' column '\(name)' is nullable",
                hint: mustBeNullable
                    ? "a row is open while its end is null: write '\(name): int?'" : "every row has a start: write '\(name): int'")
            return nil
        }
        return name
    }
}
