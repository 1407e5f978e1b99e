/// Column defaults, each checked against its column's type, and enum values. Text stays raw:
/// renderers escape it, so any characters are safe here.
extension SchemaReader {
    mutating func readDefault(_ node: YAMLNode, type: ColumnType, column: String) -> DefaultValue? {
        let value = node.scalar?.value
        if value == .null {
            log.error(
                node.mark, "the default of column '\(column.abbreviated)' is null",
                hint: "remove the default; write 'nullable: true' to let the column hold null")
            return nil
        }
        if node.containsNUL {
            log.error(
                node.mark, "the default of column '\(column.abbreviated)' contains a NUL character",
                hint: "PostgreSQL text and json cannot hold U+0000; remove the \\0")
            return nil
        }
        func reject(_ expected: String, hint: String) -> DefaultValue? {
            log.error(
                node.mark, "the default of column '\(column.abbreviated)' must be \(expected), found \(node.kindDescription)", hint: hint)
            return nil
        }
        switch (type, value) {
        case (.int, .int(let integer)?):
            return .int(integer)
        case (.int, _) where node.scalar?.looksLikeInteger == true:
            return reject("an integer within 64 bits", hint: "int columns hold \(Int64.min) through \(Int64.max)")
        case (.int, _):
            return reject("an integer", hint: "write a whole number such as 0, unquoted")
        case (.double, .int(let integer)?):
            return .double(Double(integer))
        case (.double, .double(let number)?):
            return .double(number)
        case (.double, _):
            return reject("a number", hint: "write a number such as 0 or 1.5, unquoted")
        case (.bool, .bool(let flag)?):
            return .bool(flag)
        case (.bool, _):
            return reject("true or false", hint: node.quotedBool.map { "write \($0) without quotes" } ?? "write true or false, unquoted")
        case (.text, .string(let text)?):
            return .text(text)
        case (.text, _):
            return reject("a string", hint: node.scalar.map { "quote it: \"\($0.text)\"" } ?? "write the text, quoted")
        case (.enumeration(let values), .string(let text)?):
            guard values.contains(text) else {
                log.error(
                    node.mark, "the default '\(text.abbreviated)' of column '\(column.abbreviated)' is not one of its values",
                    hint: Suggestion.hint(for: text, among: values, listing: "the values are"))
                return nil
            }
            return .text(text)
        case (.enumeration(let values), _):
            return reject("one of its values", hint: "the values are \(values.joined(separator: ", "))")
        case (.uuid, .string(let text)?) where Self.isUUID(text):
            return .text(text)
        case (.uuid, _):
            return reject("a UUID", hint: "write a UUID such as \"00000000-0000-4000-8000-000000000000\"")
        case (.timestamp, .string("now")?):
            return .now
        case (.timestamp, _):
            return reject("now", hint: "write 'default: now', or leave the default out")
        case (.bytes, _):
            log.error(
                node.mark, "bytes column '\(column.abbreviated)' cannot have a default",
                hint: "remove the default; write 'nullable: true' if rows may come without it")
            return nil
        case (.json, _):
            return .json(CanonicalJSON.text(of: node))
        case (.file, _):
            log.error(
                node.mark, "file column '\(column.abbreviated)' cannot have a default",
                hint:
                    "a file column names a file a device attached; remove the default, and write 'nullable: true' if rows may come without one"
            )
            return nil
        }
    }

    /// A UUID in its 8-4-4-4-12 hex form, any case.
    static func isUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.utf8.count) == [8, 4, 4, 4, 12]
            && groups.allSatisfy { $0.unicodeScalars.allSatisfy(\.isHexDigit) }
    }

    /// An enum's values: a non-empty list of distinct strings that are safe inside SQL checks.
    mutating func readEnumValues(_ entry: YAMLEntry) -> [String]? {
        guard let items = sequence(entry.value, expected: "a list of enum values", hint: "write 'values: [first, second]'") else {
            return nil
        }
        guard !items.isEmpty else {
            log.error(entry.value.mark, "an enum needs at least one value", hint: "write 'values: [first, second]'")
            return nil
        }
        var values: [String] = []
        var isValid = true
        for item in items {
            guard case .string(let value) = item.scalar?.value else {
                log.error(
                    item.mark, "expected a string as an enum value, found \(item.kindDescription)",
                    hint: item.scalar.map { "quote it: \"\($0.text)\"" } ?? "write each value as a word")
                isValid = false
                continue
            }
            if let problem = Self.enumValueProblem(value, among: values) {
                log.error(item.mark, problem.message, hint: problem.hint)
                isValid = false
            }
            values.append(value)
        }
        return isValid ? values : nil
    }

    private static func enumValueProblem(_ value: String, among earlier: [String]) -> (message: String, hint: String)? {
        if value.isEmpty {
            return ("an enum value is empty", "write a word, or remove the empty value")
        }
        if value.utf8.count > Identifier.maxLength {
            return (
                "enum value '\(value.abbreviated)' is \(value.utf8.count) bytes long", "keep enum values to \(Identifier.maxLength) bytes"
            )
        }
        if value.unicodeScalars.contains(where: { $0 == "'" || $0 == "\"" || $0 == "\\" || $0.properties.generalCategory == .control }) {
            return (
                "enum value '\(value.abbreviated)' contains a quote, a backslash or a control character",
                "enum values go into SQL checks verbatim; use letters, digits, spaces and other punctuation"
            )
        }
        if earlier.contains(value) {
            return ("duplicate enum value '\(value.abbreviated)'", "each value may appear once; remove this one")
        }
        return nil
    }
}

extension YAMLNode {
    /// True when any scalar or key inside holds U+0000.
    var containsNUL: Bool {
        switch content {
        case .scalar(let scalar): scalar.text.unicodeScalars.contains("\u{0}")
        case .sequence(let items): items.contains(where: \.containsNUL)
        case .mapping(let entries): entries.contains { $0.key.unicodeScalars.contains("\u{0}") || $0.value.containsNUL }
        }
    }
}

extension Unicode.Scalar {
    var isHexDigit: Bool {
        (self >= "0" && self <= "9") || (self >= "a" && self <= "f") || (self >= "A" && self <= "F")
    }
}
