/// Rules for `swift_name`: the generated row type's name, so an UpperCamelCase identifier.
enum SwiftName {
    /// Uppercase names Swift gives a meaning of its own.
    static let reserved: Set<String> = ["Self", "Any", "Type", "Protocol", "Never", "Optional"]

    /// Type names a generated row type must not take, with whose they are: an app that imports
    /// the generated module next to these would find its every use ambiguous.
    static let taken: [String: String] = {
        var taken: [String: String] = [:]
        for name in [
            "Task", "Actor", "Array", "Bool", "Character", "Clock", "Collection", "Dictionary", "Double", "Duration",
            "Error", "Float", "Int", "Mirror", "Range", "Regex", "Result", "Sequence", "Set", "String", "Substring",
        ] { taken[name] = "Swift's \(name)" }
        for name in [
            "Bundle", "Calendar", "Data", "Date", "Decimal", "Locale", "Measurement", "Notification", "Operation",
            "Predicate", "Process", "Progress", "Thread", "Timer", "TimeZone", "URL", "UUID",
        ] { taken[name] = "Foundation's \(name)" }
        for name in [
            "GeneratedSchema", "AppSchema", "TableSchema", "ColumnSchema", "SyncRecord", "SyncStore", "SyncEngine",
            "SyncError", "SyncValue", "SyncStatus", "SyncReport", "Credentials", "Filter", "ColumnValues",
        ] { taken[name] = "hope-sync's \(name)" }
        // Generated code names types by module (`Swift.String`); a type so named would hide it.
        for name in ["Swift", "Foundation", "HopeSync"] { taken[name] = "the module \(name)" }
        return taken
    }()

    static func isTypeName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIIUppercase else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIIUppercase || $0.isASCIILowercase || ($0 >= "0" && $0 <= "9") }
    }

    /// `task_list` -> `TaskList`: what the user most likely meant.
    static func suggestion(for name: String) -> String {
        let words = name.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        let joined = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        guard let first = joined.unicodeScalars.first, first.isASCIIUppercase else { return "Row" }
        return joined
    }
}

extension Unicode.Scalar {
    var isASCIIUppercase: Bool { self >= "A" && self <= "Z" }
    var isASCIILowercase: Bool { self >= "a" && self <= "z" }
}
