/// Each table's `scope:`, read once every table is, since a table can reach its scope through
/// another table's (docs/decisions/0048-sharing-by-scope.md):
///
/// ```yaml
/// task_lists: { scope: true, ... }    # each row a scope; hope-sync adds task_lists_members
/// tasks: { scope: list_id, ... }      # list_id references task_lists; null: the owner's alone
/// task_photos: { scope: task_id, ... } # through its task: hope-sync adds task_photos.list_id
/// ```
extension SchemaReader {
    mutating func readScopes(_ tables: inout [Table]) {
        var written: [String: YAMLNode] = [:]
        for (table, node, _) in scopeDeclarations {
            switch node.scalar?.value {
            case .bool(true)?:
                guard let index = tables.firstIndex(where: { $0.name == table }) else { continue }
                tables[index].sharing = .scope
                checkMembershipTable(of: table, at: node.mark)
            case .bool(false)?:
                continue
            case .string?:
                written[table] = node
            default:
                log.error(
                    node.mark, "expected true or a column name for 'scope', found \(node.kindDescription)",
                    hint:
                        "write 'scope: true' for a table whose rows are scopes, or 'scope: <column>' for a column that names a row's scope")
            }
        }
        var resolving: [String] = []
        var tried: Set<String> = []
        for (table, _, _) in scopeDeclarations where written[table] != nil {
            _ = resolveScope(of: table, written: written, tables: &tables, resolving: &resolving, tried: &tried)
        }
    }

    /// The table's sharing once its `scope: <column>` is followed to a scope table; nil (and
    /// logged) when it leads nowhere. Tables it goes through are resolved first.
    private mutating func resolveScope(
        of name: String, written: [String: YAMLNode], tables: inout [Table], resolving: inout [String], tried: inout Set<String>
    ) -> TableSharing? {
        guard let index = tables.firstIndex(where: { $0.name == name }) else { return nil }
        if let sharing = tables[index].sharing { return sharing }
        // A table that led nowhere was reported once; the tables reaching through it say nothing more.
        guard !tried.contains(name) || resolving.contains(name) else { return nil }
        tried.insert(name)
        guard let node = written[name], case .string(let columnName) = node.scalar?.value else { return nil }
        guard !resolving.contains(name) else {
            log.error(
                node.mark, "the scopes of \((resolving + [name]).map { "'\($0)'" }.joined(separator: " -> ")) go round in a circle",
                hint: "one table on the way must name a column that references a table with 'scope: true'")
            return nil
        }
        let table = tables[index]
        guard let column = table.column(named: columnName) else {
            // A column written with an error of its own was reported as such.
            guard !scopeDeclarations.contains(where: { $0.table == name && $0.columnKeys.contains(columnName) }) else { return nil }
            log.error(
                node.mark, "table '\(name.abbreviated)' has no column '\(columnName.abbreviated)' to name its rows' scope",
                hint: Suggestion.hint(for: columnName, among: table.columns.map(\.name), listing: "its columns are"))
            return nil
        }
        guard let referenced = column.references, let target = tables.first(where: { $0.name == referenced }) else {
            log.error(
                node.mark, "column '\(name).\(columnName)' references no table, so it cannot name a scope",
                hint: "give it 'references:' a table with 'scope: true' (its rows are the scopes), or a table that is shared itself")
            return nil
        }
        let sharing: TableSharing
        if target.sharing == .scope {
            sharing = .scoped(by: columnName, scopeTable: referenced)
        } else {
            resolving.append(name)
            let reached = resolveScope(of: referenced, written: written, tables: &tables, resolving: &resolving, tried: &tried)
            resolving.removeLast()
            guard let reached, let scopeTable = tables.first(where: { $0.name == referenced })?.scopeTable else {
                if written[referenced] == nil {
                    log.error(
                        node.mark, "column '\(name).\(columnName)' references '\(referenced)', which is not shared",
                        hint: "set 'scope: true' on '\(referenced)' (its rows become scopes), or give it a 'scope:' of its own")
                }
                return nil
            }
            // Through another table: the row carries that table's scope column itself, so row-level
            // security and the pull find its scope in the row, with no join.
            let added = reached.scopeColumn
            guard table.column(named: added) == nil else {
                log.error(
                    node.mark, "table '\(name)' declares '\(added)' itself, the column hope-sync adds to follow '\(referenced)''s scope",
                    hint: "remove the column and keep 'scope: \(columnName)', or write 'scope: \(added)' if it references '\(scopeTable)'")
                return nil
            }
            let position = (table.columns.firstIndex { $0.name == columnName } ?? table.columns.count - 1) + 1
            tables[index].columns.insert(Column(name: added, type: .uuid, isNullable: true, references: scopeTable), at: position)
            locations.columns["\(name).\(added)"] = log.location(node.mark)
            sharing = .follows(through: columnName, column: added, scopeTable: scopeTable)
        }
        tables[index].sharing = sharing
        return sharing
    }

    /// `<scope>_members` is hope-sync's: no declared table may have its name, and it must be a
    /// name both databases take.
    private mutating func checkMembershipTable(of table: String, at mark: YAMLMark) {
        let name = MembershipTable.name(of: table)
        if declaredTables.contains(name) {
            log.error(
                mark, "table '\(name)' is declared, but hope-sync makes it to list the members of scope '\(table)'",
                hint: "rename the declared table")
        } else if let problem = Identifier.problem(with: name, as: .table) {
            log.error(mark, "the membership table of scope '\(table.abbreviated)': \(problem.message)", hint: problem.hint)
        }
    }
}
