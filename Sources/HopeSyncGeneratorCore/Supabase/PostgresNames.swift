import HopeSyncSchema

/// Checks the identifiers of rendered server SQL: PostgreSQL silently cuts a name at 63 bytes,
/// so two names made from one long table name (`<table>_select_own`, `<table>_before_write`,
/// the pull index) could become one, and the SQL would apply with a policy, a trigger or an
/// index missing. Reading the rendered text, not a list of suffixes, covers every name any
/// template makes, the user's own templates included.
enum PostgresNames {
    static let maxBytes = 63

    static func problems(in sql: String, schema: Schema, locations: SourceLocations) -> [Diagnostic] {
        let tokens = SQLTokens(sql)
        var problems: [Diagnostic] = []
        var longest: [String: String] = [:] // table -> its longest identifier over the limit
        for token in Set(tokens.identifiers) where token.utf8.count > maxBytes {
            let table = owner(of: token, in: schema)
            let key = table?.name ?? ""
            if let kept = longest[key], kept.utf8.count > token.utf8.count || (kept.utf8.count == token.utf8.count && kept < token) {
                continue
            }
            longest[key] = token
        }
        for (key, token) in longest.sorted(by: { $0.key < $1.key }) {
            let table = schema.table(named: key)
            let column = table.flatMap { table in
                table.columns.filter { token.hasPrefix(table.name + "_" + $0.name + "_") }.max { $0.name.count < $1.name.count }
            }
            let place =
                table.map { locations.location(table: $0.name, column: column?.name) }
                ?? SourceLocation(file: locations.file, line: 1, column: 1)
            let over = token.utf8.count - maxBytes
            let named = column.map { "table '\(key)' and column '\($0.name)'" } ?? table.map { "table '\($0.name)'" } ?? "the schema"
            problems.append(
                Diagnostic(
                    place,
                    "the server name '\(token)', made from \(named), is \(token.utf8.count) bytes long",
                    hint:
                        "PostgreSQL cuts names at \(maxBytes) bytes, so names made from one table could become one; shorten the \(column == nil ? "table" : "table or column") name by at least \(over) bytes"
                ))
        }
        problems += duplicateRelations(tokens.created, schema: schema, locations: locations)
        return problems
    }

    /// Tables, indexes and sequences share one namespace per PostgreSQL schema; functions
    /// another.
    private static func duplicateRelations(_ created: [(kind: String, name: String)], schema: Schema, locations: SourceLocations)
        -> [Diagnostic]
    {
        var seen: [String: String] = [:]
        var problems: [Diagnostic] = []
        for (kind, name) in created {
            let namespace = kind == "function" ? "function" : "relation"
            if let first = seen[namespace + " " + name] {
                let table = owner(of: name, in: schema)
                problems.append(
                    Diagnostic(
                        table.map { locations.location(table: $0.name) } ?? SourceLocation(file: locations.file, line: 1, column: 1),
                        "the server would create '\(name)' twice (\(article(first)) \(first), then \(article(kind)) \(kind))",
                        hint:
                            "PostgreSQL keeps tables, indexes and sequences in one namespace; rename the table or index that makes one of them"
                    ))
            } else {
                seen[namespace + " " + name] = kind
            }
        }
        return problems
    }

    private static func article(_ noun: String) -> String {
        noun.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }

    /// The table a derived name is made from: the longest table name it starts with.
    private static func owner(of identifier: String, in schema: Schema) -> Table? {
        schema.tables.filter { identifier == $0.name || identifier.hasPrefix($0.name + "_") }.max {
            $0.name.utf8.count < $1.name.utf8.count
        }
    }
}
