extension Table {
    /// The generated Swift row type's name: `swift_name`, else the table's name singular, in
    /// UpperCamelCase (`sessions` -> `Session`, `activities` -> `Activity`). Decided here, in the
    /// model, so the validator checks exactly the names the generator will write.
    public var swiftTypeName: String {
        swiftName ?? Self.upperCamel(Self.singular(name))
    }

    static func singular(_ name: String) -> String {
        if name.hasSuffix("ies") { return String(name.dropLast(3)) + "y" }
        if name.hasSuffix("sses") { return String(name.dropLast(2)) }
        if name.hasSuffix("s"), !name.hasSuffix("ss") { return String(name.dropLast()) }
        return name
    }

    /// `task_lists` -> `TaskLists`.
    public static func upperCamel(_ name: String) -> String {
        let lower = lowerCamel(name)
        return lower.prefix(1).uppercased() + lower.dropFirst()
    }

    /// `started_ms` -> `startedMs`: each `_` before a letter becomes that letter uppercased;
    /// every other `_` stays (`note_2`, `a__b` -> `a_B`). Schema names have no uppercase
    /// letters, so no two names give one spelling: `note2` and `note_2`, `a_b` and `a__b`,
    /// `server__seq` and `server_seq` stay apart.
    public static func lowerCamel(_ name: String) -> String {
        var result = ""
        var pendingUnderscore = false
        for character in name {
            if pendingUnderscore {
                pendingUnderscore = false
                if character.isASCII, character.isLowercase {
                    result += character.uppercased()
                    continue
                }
                result += "_"
            }
            if character == "_", !result.isEmpty {
                pendingUnderscore = true
            } else {
                result.append(character)
            }
        }
        if pendingUnderscore { result += "_" }
        return result
    }
}
