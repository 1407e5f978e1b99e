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
        name.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
