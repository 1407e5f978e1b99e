/// The `columns:` of one table: `name: type`, `name: type?`, or a mapping.
extension SchemaReader {
    static let columnKeys = ["type", "nullable", "default", "references", "values"]

    /// Words people reach for from other databases, mapped to the schema's own.
    static let typeSynonyms = [
        "string": "text", "varchar": "text", "integer": "int", "bigint": "int", "boolean": "bool",
        "float": "double", "real": "double", "number": "double", "datetime": "timestamp",
        "date": "timestamp", "timestamptz": "timestamp", "blob": "bytes", "jsonb": "json",
    ]

    mutating func readColumns(_ entry: YAMLEntry?, table: String, tableMark: YAMLMark, tableFields: [YAMLEntry]) -> (
        columns: [Column], names: [String]
    ) {
        guard let entry else {
            // A misspelt 'columns:' has been reported as such; saying it is missing adds nothing.
            guard !hasMisspelling(of: "columns", in: tableFields, allowed: Self.tableKeys) else { return ([], []) }
            log.error(
                tableMark, "table '\(table.abbreviated)' has no 'columns'",
                hint: "add 'columns:' with at least one column, such as 'name: text'")
            return ([], [])
        }
        guard
            let entries = mapping(entry.value, expected: "a mapping of columns", hint: "write each column as 'name: type' under 'columns:'")
        else {
            return ([], [])
        }
        guard !entries.isEmpty else {
            log.error(
                entry.keyMark, "table '\(table.abbreviated)' has no columns", hint: "declare at least one column, such as 'name: text'")
            return ([], [])
        }
        return (entries.compactMap { readColumn($0, table: table) }, entries.map(\.key))
    }

    private mutating func readColumn(_ entry: YAMLEntry, table: String) -> Column? {
        let name = entry.key
        locations.columns["\(table).\(name)"] = log.location(entry.keyMark)
        let isNameValid = checkName(name, as: .column, at: entry.keyMark)
        let column: Column?
        switch entry.value.content {
        case .scalar:
            column = readShorthand(entry.value, column: name)
        case .mapping(let fields):
            column = readColumnMapping(fields, column: name, at: entry.keyMark)
        case .sequence:
            log.error(
                entry.value.mark, "expected a type or a mapping for column '\(name.abbreviated)', found a list",
                hint: "write '\(name.abbreviated): text' or '\(name.abbreviated): { type: text, default: \"\" }'")
            column = nil
        }
        return isNameValid ? column : nil
    }

    /// `text` is NOT NULL, `text?` is nullable; neither has a default.
    private mutating func readShorthand(_ node: YAMLNode, column: String) -> Column? {
        guard case .string(let written) = node.scalar?.value else {
            log.error(
                node.mark, "expected a type for column '\(column.abbreviated)', found \(node.kindDescription)",
                hint: "write '\(column.abbreviated): text' or another type: \(ColumnType.keywords.joined(separator: ", "))")
            return nil
        }
        let isNullable = written.hasSuffix("?")
        let keyword = isNullable ? String(written.dropLast()) : written
        guard let type = readType(keyword, at: node.mark, column: column, values: nil) else { return nil }
        return Column(name: column, type: type, isNullable: isNullable)
    }

    private mutating func readColumnMapping(_ fields: [YAMLEntry], column: String, at mark: YAMLMark) -> Column? {
        rejectUnknownKeys(fields, allowed: Self.columnKeys, in: "in column '\(column.abbreviated)'")
        let isNullable = fields["nullable"].flatMap { bool($0, for: "nullable") } ?? false
        let referencesNode = fields["references"]
        let references = referencesNode.flatMap { readReference($0, column: column) }
        guard let typeNode = fields["type"] else {
            log.error(
                mark, "column '\(column.abbreviated)' has no 'type'",
                hint: "add 'type:' with one of \(ColumnType.keywords.joined(separator: ", "))")
            return nil
        }
        guard let keyword = string(typeNode, for: "type", hint: "write one of \(ColumnType.keywords.joined(separator: ", "))") else {
            return nil
        }
        if keyword.hasSuffix("?") {
            log.error(
                typeNode.mark, "type '\(keyword.abbreviated)' ends with '?' in the mapping form",
                hint: "write 'type: \(keyword.dropLast())' and 'nullable: true'")
            return nil
        }
        let valuesEntry = fields.entry("values")
        if let valuesEntry, keyword != "enum" {
            log.error(valuesEntry.keyMark, "'values' applies only to enum columns", hint: "remove 'values', or write 'type: enum'")
        }
        guard let type = readType(keyword, at: typeNode.mark, column: column, values: valuesEntry) else { return nil }
        if let references, let referencesNode, type != .uuid {
            log.error(
                referencesNode.mark, "column '\(column.abbreviated)' references '\(references)' but is \(type.keyword)",
                hint: "a reference holds the other row's id: make the column 'type: uuid'")
        }
        let defaultValue = fields["default"].flatMap { readDefault($0, type: type, column: column) }
        return Column(name: column, type: type, isNullable: isNullable, defaultValue: defaultValue, references: references)
    }

    /// A type keyword; an enum takes its values from the `values` entry.
    private mutating func readType(_ keyword: String, at mark: YAMLMark, column: String, values: YAMLEntry?) -> ColumnType? {
        switch keyword {
        case "text": return .text
        case "int": return .int
        case "double": return .double
        case "bool": return .bool
        case "uuid": return .uuid
        case "timestamp": return .timestamp
        case "json": return .json
        case "bytes": return .bytes
        case "enum":
            guard let values else {
                log.error(
                    mark, "enum column '\(column.abbreviated)' has no 'values'",
                    hint: "write '\(column.abbreviated): { type: enum, values: [first, second] }'")
                return nil
            }
            return readEnumValues(values).map(ColumnType.enumeration)
        default:
            let match = Self.typeSynonyms[keyword.lowercased()] ?? Suggestion.closest(to: keyword, among: ColumnType.keywords)
            log.error(
                mark, "unknown type '\(keyword.abbreviated)' for column '\(column.abbreviated)'",
                hint: match.map { "did you mean '\($0)'?" } ?? "the types are \(ColumnType.keywords.joined(separator: ", "))")
            return nil
        }
    }

    private mutating func readReference(_ node: YAMLNode, column: String) -> String? {
        guard let table = string(node, for: "references", hint: "write the name of a table declared under 'tables:'") else { return nil }
        guard declaredTables.contains(table) else {
            log.error(
                node.mark, "column '\(column.abbreviated)' references unknown table '\(table.abbreviated)'",
                hint: Suggestion.hint(for: table, among: declaredTables, listing: "the tables are"))
            return nil
        }
        return table
    }
}
