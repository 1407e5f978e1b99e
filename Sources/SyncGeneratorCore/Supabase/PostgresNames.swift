import SyncSchema

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

/// The identifiers of SQL text, outside string literals and comments, and the objects its
/// `create` statements make.
struct SQLTokens {
    private(set) var identifiers: [String] = []
    private(set) var created: [(kind: String, name: String)] = []

    init(_ sql: String) {
        let bytes = Array(sql.utf8)
        var words: [String] = [] // identifiers and "." in order, for reading `create` statements
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                index = Self.end(of: bytes, from: index, closing: UInt8(ascii: "'"))
            } else if byte == UInt8(ascii: "\"") {
                let end = Self.end(of: bytes, from: index, closing: UInt8(ascii: "\""))
                let name = String(decoding: bytes[(index + 1)..<max(index + 1, end - 1)], as: UTF8.self)
                identifiers.append(name)
                words.append(name)
                index = end
            } else if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if Self.isIdentifierStart(byte) {
                let start = index
                while index < bytes.count,
                    Self.isIdentifierStart(bytes[index]) || Self.isDigit(bytes[index]) || bytes[index] == UInt8(ascii: "$")
                {
                    index += 1
                }
                let word = String(decoding: bytes[start..<index], as: UTF8.self)
                identifiers.append(word)
                words.append(word.lowercased())
            } else {
                if byte == UInt8(ascii: ".") { words.append(".") } else if byte == UInt8(ascii: ";") { words.append(";") }
                index += 1
            }
        }
        created = Self.createdObjects(words)
    }

    /// `create [or replace] [unique] <kind> [if not exists] [public.]<name>`.
    private static func createdObjects(_ words: [String]) -> [(kind: String, name: String)] {
        let kinds: Set<String> = ["table", "index", "sequence", "function", "view"]
        let skipped: Set<String> = ["or", "replace", "unique", "if", "not", "exists", "public", ".", "concurrently"]
        var result: [(kind: String, name: String)] = []
        var index = 0
        while index < words.count {
            defer { index += 1 }
            guard words[index] == "create" else { continue }
            var next = index + 1
            while next < words.count, skipped.contains(words[next]) { next += 1 }
            guard next < words.count, kinds.contains(words[next]) else { continue }
            let kind = words[next]
            next += 1
            while next < words.count, skipped.contains(words[next]) { next += 1 }
            if next < words.count { result.append((kind, words[next])) }
        }
        return result
    }

    /// The index after a quoted run that started at `start`, a doubled quote staying inside.
    private static func end(of bytes: [UInt8], from start: Int, closing quote: UInt8) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == quote {
                if index + 1 < bytes.count, bytes[index + 1] == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return index
    }

    private static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
