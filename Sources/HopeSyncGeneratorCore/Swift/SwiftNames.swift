import HopeSyncSchema

/// Swift spellings of schema names: `sessions` -> `Session`, `started_ms` -> `startedMs`.
/// (Row type names are the model's: `Table.swiftTypeName`, so the validator checks them.)
///
/// Generated Swift names every type it uses by its module (`Swift.String`, `Foundation.UUID`,
/// `HopeSync.TableSchema`), so a row type or a nested enum may take any of those names
/// without changing what the rest of the code means. The names derived here are distinct by
/// construction (``Table/lowerCamel(_:)`` is one-to-one); ``RecordNames`` proves it for each row
/// type, since a keyword's escape can still meet another column's name.
enum SwiftNames {
    /// The modules generated code qualifies names with: a type of one of these names would
    /// hide the module.
    static let modules: Set<String> = ["Swift", "Foundation", "HopeSync"]

    static func propertyName(_ column: String) -> String {
        let name = Table.lowerCamel(column)
        // `self.self` is the instance, never a property: no backticks make it one. A property
        // `columnValues` would be a second `columnValues()`, which SyncRecord requires.
        if name == "self" || name == "columnValues" { return name + "_" }
        return escaped(name)
    }

    /// A column's nested enum type. The names Swift gives a meaning inside a type, the record's
    /// own `CodingKeys`, and the modules take a `_`.
    static func enumTypeName(_ column: String) -> String {
        let name = Table.upperCamel(column)
        return reservedTypeNames.contains(name) || modules.contains(name) ? name + "_" : name
    }

    /// Every value's case name, in order, each distinct: the value's letters and digits in
    /// lowerCamelCase, `value` when it has none, and a number after a name an earlier value took
    /// (`in progress` and `in-progress` -> `inProgress`, `inProgress2`). The raw value keeps the
    /// exact text, so the names only need to be valid and stable: values are only ever appended.
    static func caseNames(_ values: [String]) -> [String] {
        var taken: Set<String> = []
        return values.map { value in
            let base = caseBase(value)
            var name = base
            var number = 2
            while taken.contains(name) {
                name = base + String(number)
                number += 1
            }
            taken.insert(name)
            return escaped(name)
        }
    }

    private static func caseBase(_ value: String) -> String {
        // ASCII only: Swift's identifier characters are a subset of Unicode's letters.
        let words = value.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        guard !words.isEmpty else { return "value" }
        let first = words[0].prefix(1).lowercased() + words[0].dropFirst()
        let name = ([first] + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }).joined()
        return name.first!.isNumber ? "_" + name : name
    }

    /// A string literal that needs no escaping inside: `#"""` with enough `#`s.
    static func rawMultilineLiteral(_ text: String, indent: String) -> String {
        SwiftLiteral.multiline(text, indent: indent)
    }

    private static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    private static let reservedTypeNames: Set<String> = ["Type", "Self", "Protocol", "Any", "CodingKeys"]

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "as", "false", "is", "nil", "self", "super", "throws", "true",
        "try", "await", "async", "any", "some", "Type", "Self", "package", "consume", "borrowing", "consuming",
        "nonisolated", "isolated", "sending", "macro", "each", "discard", "copy", "then", "actor",
    ]
}
