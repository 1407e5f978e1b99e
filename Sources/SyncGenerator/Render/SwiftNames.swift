import SyncSchema

/// Swift spellings of schema names: `sessions` -> `Session`, `started_ms` -> `startedMs`.
/// (Row type names are the model's: `Table.swiftTypeName`, so the validator checks them.)
enum SwiftNames {
    static func propertyName(_ column: String) -> String {
        escaped(lowerCamel(column))
    }

    static func enumTypeName(_ column: String) -> String {
        Table.upperCamel(column)
    }

    /// An enum value as a case name; the raw value keeps the exact text.
    static func caseName(_ value: String) -> String {
        var name = lowerCamel(value.map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined())
        if name.isEmpty || name.first!.isNumber { name = "_" + name }
        return escaped(name)
    }

    static func lowerCamel(_ name: String) -> String {
        let upper = Table.upperCamel(name)
        return upper.prefix(1).lowercased() + upper.dropFirst()
    }

    /// A string literal that needs no escaping inside: `#"""` with enough `#`s.
    static func rawMultilineLiteral(_ text: String, indent: String) -> String {
        let hashes = String(repeating: "#", count: RawLiteral.hashCount(for: text))
        var body = ""
        body.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        for (index, line) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if index > 0 { body += "\n" }
            if !line.isEmpty { body += indent + String(decoding: line, as: UTF8.self) }  // blank lines stay blank
        }
        return "\(hashes)\"\"\"\n\(body)\n\(indent)\"\"\"\(hashes)"
    }

    private static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "as", "false", "is", "nil", "self", "super", "throws", "true",
        "try", "await", "async", "any", "some", "Type", "Self",
    ]
}

/// Raw string literals (Swift `#"…"#`, Rust `r#"…"#`) need one more `#` than the longest run
/// of `#`s that follows a quote in the text.
enum RawLiteral {
    static func hashCount(for text: String) -> Int {
        let quote = UInt8(ascii: "\"")
        var longest = 0
        var run = -1
        for character in text.utf8 {
            if character == quote {
                run = 0
            } else if character == UInt8(ascii: "#"), run >= 0 {
                run += 1
                longest = max(longest, run)
            } else {
                run = -1
            }
        }
        return longest + 1
    }
}
