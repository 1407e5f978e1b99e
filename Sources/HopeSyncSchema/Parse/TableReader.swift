/// One entry under `tables:`.
extension SchemaReader {
    static let tableKeys = [
        "swift_name", "conflict", "merge", "exact_ordering", "columns", "indexes", "rules", "scope", "deprecated", "was",
    ]

    mutating func readTable(_ entry: YAMLEntry) -> Table? {
        let name = entry.key
        locations.tables[name] = log.location(entry.keyMark)
        checkName(name, as: .table, at: entry.keyMark)
        guard
            let fields = mapping(
                entry.value, expected: "a mapping for table '\(name.abbreviated)'",
                hint: "give the table its 'columns:' on the following lines, indented")
        else {
            return nil
        }
        rejectUnknownKeys(fields, allowed: Self.tableKeys, in: "in table '\(name.abbreviated)'")

        let swiftName = fields["swift_name"].flatMap { readSwiftName($0, table: name) }
        // nil when written but unreadable (already reported).
        let conflict: ConflictMode? = if let node = fields["conflict"] { readConflict(node) } else { .lww }
        let merge = fields["merge"].flatMap { readMerge($0, conflict: conflict) } ?? .column
        let exactOrdering = fields["exact_ordering"].flatMap { bool($0, for: "exact_ordering") } ?? true
        let declared = readColumns(fields.entry("columns"), table: name, tableMark: entry.keyMark, tableFields: fields)
        var table = Table(
            name: name, swiftName: swiftName, conflict: conflict ?? .lww, merge: merge, exactOrdering: exactOrdering,
            columns: declared.columns)
        if fields["swift_name"] == nil { swiftNames.append((table.swiftTypeName, entry.keyMark, name, false)) }
        table.isDeprecated = fields["deprecated"].flatMap { bool($0, for: "deprecated") } ?? false
        table.was = fields["was"].flatMap { readFormerTableName($0, table: name) }

        // With an unreadable conflict mode any implicit column may exist: assume them all
        // rather than report an index on `version` that may well be right.
        let implicit = conflict == nil ? ReservedColumn.names : Set(table.syncedColumns.filter { $0.role != .user }.map(\.name))
        let known = ColumnNames(implicit: implicit, declared: declared.names, parsed: declared.columns)
        if let node = fields["indexes"] { table.indexes = readIndexes(node, table: name, columns: known) }
        if let node = fields["rules"] { table.rules = readRules(node, table: name, columns: known) }
        // Read once every table is (readScopes): a scope is named through other tables.
        if let node = fields["scope"] { scopeDeclarations.append((name, node, declared.names)) }
        if !exactOrdering, table.openRowRule != nil, let node = fields["exact_ordering"] {
            refuseLookback(with: table.name, at: node)
        }
        return table
    }

    /// The rule reads the owner's rows, so its trigger takes the owner's lock whatever the
    /// option says, and the server orders the owner's rows exactly anyway. Clients told to
    /// look back would re-read rows for nothing, and a migration switching the option would
    /// change nothing on the server: the option has no meaning here, so it is refused.
    private mutating func refuseLookback(with table: String, at node: YAMLNode) {
        log.error(
            node.mark, "'exact_ordering: false' cannot be combined with the one_open_per_owner rule of table '\(table.abbreviated)'",
            hint:
                "the rule takes the owner's lock on the server, so the owner's rows are ordered exactly anyway; remove 'exact_ordering: false'"
        )
    }

    /// `was: old`, the table's name before a rename (decision 0054): a name, and not its own.
    private mutating func readFormerTableName(_ node: YAMLNode, table: String) -> String? {
        guard let name = string(node, for: "was", hint: "write the table's shipped name, such as 'was: habits'") else { return nil }
        guard checkName(name, as: .table, at: node.mark) else { return nil }
        if name == table {
            log.error(node.mark, "table '\(table.abbreviated)' says it was '\(name.abbreviated)', its own name", hint: "remove 'was'")
            return nil
        }
        return name
    }

    private mutating func readSwiftName(_ node: YAMLNode, table: String) -> String? {
        guard let swiftName = string(node, for: "swift_name", hint: "write an UpperCamelCase type name such as 'Activity'") else {
            return nil
        }
        guard SwiftName.isTypeName(swiftName) else {
            log.error(
                node.mark, "swift_name '\(swiftName.abbreviated)' is not an UpperCamelCase Swift type name",
                hint: "start with an uppercase letter and use only letters and digits, such as '\(SwiftName.suggestion(for: swiftName))'")
            return nil
        }
        guard !SwiftName.reserved.contains(swiftName) else {
            log.error(
                node.mark, "swift_name '\(swiftName)' is reserved in Swift", hint: "pick another type name, such as '\(swiftName)Row'")
            return nil
        }
        swiftNames.append((swiftName, node.mark, table, true))
        return swiftName
    }

    /// `column` or `row`; only an lww table merges (a version table's writes send their columns).
    private mutating func readMerge(_ node: YAMLNode, conflict: ConflictMode?) -> MergeMode? {
        let modes = MergeMode.allCases.map(\.rawValue)
        guard let word = keyword(node, for: "merge", naming: "merge mode", among: modes) else { return nil }
        if let conflict, conflict != .lww {
            log.error(
                node.mark, "'merge' applies only to lww tables",
                hint: "remove 'merge': a version table's guarded writes already send only the columns they set")
            return nil
        }
        return MergeMode(rawValue: word)
    }

    /// `lww`, `version`, or `{ mode: ..., version: timestamp|integer }`; nil when unreadable.
    private mutating func readConflict(_ node: YAMLNode) -> ConflictMode? {
        let modes = ["lww", "version"]
        if let fields = node.mapping {
            rejectUnknownKeys(fields, allowed: ["mode", "version"], in: "in 'conflict'")
            guard let modeNode = fields["mode"] else {
                log.error(node.mark, "the conflict mapping has no 'mode'", hint: "write 'mode: lww' or 'mode: version'")
                return nil
            }
            guard let mode = keyword(modeNode, for: "mode", naming: "conflict mode", among: modes) else { return nil }
            let kindNode = fields["version"]
            if mode == "lww" {
                if let kindNode {
                    log.error(
                        kindNode.mark, "'version' applies only to conflict mode 'version'",
                        hint: "remove 'version' or write 'mode: version'")
                }
                return .lww
            }
            guard let kindNode else { return .version(.timestamp) }
            return keyword(kindNode, for: "version", naming: "version kind", among: VersionKind.allCases.map(\.rawValue))
                .flatMap(VersionKind.init(rawValue:)).map(ConflictMode.version)
        }
        guard node.scalar != nil else {
            log.error(
                node.mark, "expected lww, version or a mapping for 'conflict', found \(node.kindDescription)",
                hint: "write 'conflict: lww', 'conflict: version' or 'conflict: { mode: version, version: integer }'")
            return nil
        }
        return keyword(node, for: "conflict", naming: "conflict mode", among: modes).map { $0 == "lww" ? .lww : .version(.timestamp) }
    }

    /// One of a fixed set of words, with a did-you-mean when it is not.
    mutating func keyword(_ node: YAMLNode, for key: String, naming noun: String, among words: [String]) -> String? {
        let listing = words.map { "'\($0)'" }.joined(separator: " or ")
        guard let word = string(node, for: key, hint: "write \(listing)") else { return nil }
        guard words.contains(word) else {
            log.error(
                node.mark, "unknown \(noun) '\(word.abbreviated)'",
                hint: Suggestion.closest(to: word, among: words).map { "did you mean '\($0)'?" } ?? "write \(listing)")
            return nil
        }
        return word
    }
}

/// The names an index or a rule may use in one table.
struct ColumnNames {
    /// The toolchain's columns for this table's conflict mode.
    var implicit: Set<String>
    /// Every key under `columns:`, in order, including those with errors of their own.
    var declared: [String]
    /// The declared columns that parsed.
    var parsed: [Column]

    func contains(_ name: String) -> Bool {
        implicit.contains(name) || declared.contains(name)
    }

    var all: [String] { declared + implicit.sorted() }
}
