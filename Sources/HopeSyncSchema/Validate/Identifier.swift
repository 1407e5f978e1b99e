/// What a name in schema.yaml names; each kind has a few rules of its own on top of the
/// plain-identifier ones.
enum NameKind: String {
    case table
    case column
    case index

    /// Table prefixes the toolchain or the databases keep for themselves.
    static let reservedTablePrefixes = ["sync_", "auth", "sqlite_", "pg_"]
}

enum Identifier {
    static let maxLength = 63

    /// Why `name` cannot name a `kind`, as (message, hint), or nil when it can.
    ///
    /// A plain identifier (`^[a-z][a-z0-9_]*$`, at most 63 bytes, not a keyword) reads the
    /// same unquoted on PostgreSQL and SQLite, so renderers never quote a name and no name
    /// can smuggle SQL in.
    static func problem(with name: String, as kind: NameKind) -> (message: String, hint: String)? {
        var shown: String { name.abbreviated }
        if name.hasPrefix("_") {
            return (
                "\(kind) name '\(shown)' starts with '_'",
                "names starting with '_' are reserved for the local bookkeeping the toolchain adds; pick another name"
            )
        }
        guard isPlain(name) else {
            let advice = "use lowercase letters, digits and '_', starting with a letter"
            let fixed = snakeCase(name)
            guard isPlain(fixed), problem(with: fixed, as: kind) == nil else {
                return ("\(kind) name '\(shown)' is not a plain SQL identifier", advice)
            }
            return ("\(kind) name '\(shown)' is not a plain SQL identifier", "\(advice), such as '\(fixed)'")
        }
        if name.utf8.count > maxLength {
            return (
                "\(kind) name '\(shown)' is \(name.utf8.count) bytes long",
                "PostgreSQL cuts names at \(maxLength) bytes; pick a shorter name"
            )
        }
        if SQLKeywords.reserved.contains(name) {
            return ("\(kind) name '\(name)' is an SQL keyword", "PostgreSQL or SQLite reserves '\(name)'; pick another name")
        }
        switch kind {
        case .table:
            if let prefix = NameKind.reservedTablePrefixes.first(where: name.hasPrefix) {
                return (
                    "table name '\(shown)' starts with '\(prefix)'",
                    "table names starting with '\(prefix)' are reserved for the toolchain and the databases; pick another name"
                )
            }
        case .column:
            if ReservedColumn.names.contains(name) {
                return (
                    "column name '\(name)' is reserved",
                    "the toolchain adds '\(name)' to every table itself; remove it or pick another name"
                )
            }
            if SQLKeywords.systemColumns.contains(name) {
                return ("column name '\(name)' is a system column of PostgreSQL or SQLite", "pick another name")
            }
        case .index:
            // SQLite refuses any object whose name starts so, indexes included.
            if name.hasPrefix("sqlite_") {
                return ("index name '\(shown)' starts with 'sqlite_'", "SQLite reserves names starting with 'sqlite_'; pick another name")
            }
        }
        return nil
    }

    static func isPlain(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLowercaseLetter(first) else { return false }
        return name.utf8.allSatisfy {
            isLowercaseLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_")
        }
    }

    private static func isLowercaseLetter(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
    }

    /// The name in snake_case with everything else dropped: `StartedAt` -> `started_at`.
    private static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name where character.isASCII {
            if character.isUppercase {
                if !result.isEmpty, result.last != "_" { result += "_" }
                result += character.lowercased()
            } else if character.isLetter || character.isNumber {
                result.append(character)
            } else if !result.isEmpty, result.last != "_" {
                result += "_"
            }
        }
        while result.hasSuffix("_") { result.removeLast() }
        return result
    }
}
