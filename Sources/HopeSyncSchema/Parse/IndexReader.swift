/// A table's `indexes:`: `- { columns: [a, b], unique: true, name: my_idx }`.
extension SchemaReader {
    static let indexKeys = ["columns", "unique", "name"]

    mutating func readIndexes(_ node: YAMLNode, table: String, columns: ColumnNames) -> [Index] {
        guard let items = sequence(node, expected: "a list of indexes", hint: "write each index as '- columns: [a, b]'") else { return [] }
        return items.compactMap { readIndex($0, table: table, columns: columns) }
    }

    private mutating func readIndex(_ node: YAMLNode, table: String, columns known: ColumnNames) -> Index? {
        guard let fields = mapping(node, expected: "an index mapping", hint: "write '- columns: [a, b]'") else { return nil }
        rejectUnknownKeys(fields, allowed: Self.indexKeys, in: "in an index of table '\(table.abbreviated)'")
        let isUnique = fields["unique"].flatMap { bool($0, for: "unique") } ?? false
        guard let columnsNode = fields["columns"] else {
            log.error(node.mark, "the index has no 'columns'", hint: "write 'columns: [a, b]' with the columns it covers, in order")
            return nil
        }
        guard let columns = readIndexColumns(columnsNode, table: table, known: known) else { return nil }

        if let nameNode = fields["name"] {
            guard let name = string(nameNode, for: "name", hint: "write a name such as '\(table)_\(columns.joined(separator: "_"))_idx'"),
                checkName(name, as: .index, at: nameNode.mark)
            else { return nil }
            indexNames.append((name, nameNode.mark))
            return Index(name: name, columns: columns, isUnique: isUnique)
        }
        let name = Index.defaultName(table: table, columns: columns)
        guard name.utf8.count <= Identifier.maxLength else {
            log.error(
                node.mark, "the index name '\(name.abbreviated)' made from the table and columns is \(name.utf8.count) bytes long",
                hint: "PostgreSQL cuts names at \(Identifier.maxLength) bytes; give the index a shorter 'name:'")
            return nil
        }
        indexNames.append((name, node.mark))
        return Index(name: name, columns: columns, isUnique: isUnique)
    }

    private mutating func readIndexColumns(_ node: YAMLNode, table: String, known: ColumnNames) -> [String]? {
        guard let items = sequence(node, expected: "a list of columns", hint: "write 'columns: [a, b]', even for one column") else {
            return nil
        }
        guard !items.isEmpty else {
            log.error(
                node.mark, "the index has no columns",
                hint: "list the columns it covers, such as 'columns: [\(known.declared.first ?? "name")]'")
            return nil
        }
        var columns: [String] = []
        var isValid = true
        for item in items {
            guard let column = string(item, for: "columns", hint: "write the column's name") else {
                isValid = false
                continue
            }
            if !known.contains(column) {
                log.error(
                    item.mark, "index on unknown column '\(column.abbreviated)' of table '\(table.abbreviated)'",
                    hint: Suggestion.hint(for: column, among: known.all, listing: "the columns are"))
                isValid = false
            } else if columns.contains(column) {
                log.error(item.mark, "column '\(column)' appears twice in the index", hint: "list each column once")
                isValid = false
            }
            columns.append(column)
        }
        return isValid ? columns : nil
    }
}
