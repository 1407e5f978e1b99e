/// Renaming a table (decision 0054): `was: old` under the table's new name renames it, one step
/// at a time (the table otherwise as it shipped); removing `was:` finishes it once
/// `oldest_writer` passed the builds that know only the old name. The server keeps every old
/// name for those builds, so removing `was:` changes what the snapshot records, not what they
/// reach.
extension SchemaDiff {
    /// Whether schema.yaml renames shipped table `name` (so it is not removed).
    static func isRenamed(_ name: String, in schema: Schema) -> Bool {
        schema.tables.contains { $0.was == name }
    }

    /// A table the snapshot does not hold under this name: a rename when its `was` names a
    /// shipped table, a new table otherwise (nil: not this function's to judge).
    static func tableRename(_ table: Table, old: Schema, new: Schema, locations: SourceLocations) -> (
        changes: [SchemaChange], problems: [Diagnostic]
    )? {
        let here = locations.location(table: table.name)
        if let owner = old.tables.first(where: { $0.oldNames.contains(table.name) }) {
            return (
                [],
                [
                    Diagnostic(
                        here, "'\(table.name)' is an old name of table '\(owner.name)': the server still serves it to old builds",
                        hint: "choose another name")
                ]
            )
        }
        guard let was = table.was else { return nil }
        func refused(_ message: String, _ hint: String) -> ([SchemaChange], [Diagnostic]) { ([], [Diagnostic(here, message, hint: hint)]) }
        guard let shipped = old.table(named: was) else {
            if let owner = old.tables.first(where: { $0.oldNames.contains(was) }) {
                return refused(
                    "table '\(table.name)' was '\(was)', which is an old name of '\(owner.name)'",
                    "'was' names the table's name in the newest migration: write 'was: \(owner.name)'")
            }
            return refused(
                "table '\(table.name)' was '\(was)', but no shipped table is named '\(was)'",
                "'was' names the table's name in the newest migration; a new table has no 'was'")
        }
        if new.table(named: was) != nil {
            return refused(
                "table '\(was)' is renamed to '\(table.name)' but is still in schema.yaml",
                "a rename moves the name: remove '\(was)' and keep 'was: \(was)' on '\(table.name)'")
        }
        if new.tables.filter({ $0.was == was }).count > 1 {
            return refused("table '\(was)' is renamed twice", "a table has one new name: keep 'was: \(was)' on one table")
        }
        if let renaming = shipped.was {
            return refused(
                "table '\(was)' is still being renamed from '\(renaming)'",
                "one rename at a time: keep '\(was)' until 'oldest_writer' lets its rename finish (remove its 'was'), then rename it")
        }
        if shipped.isDeprecated || table.isDeprecated {
            return refused(
                "table '\(was)' is deprecated and renamed at once", "a deprecated table stays as it shipped; rename or deprecate, not both")
        }
        // Shared rows are pulled by stream and scope, which name tables: not followed yet.
        if old.tables.contains(where: { $0.sharing != nil }) || new.tables.contains(where: { $0.sharing != nil }) {
            return refused(
                "table '\(was)' cannot be renamed: renaming a table of a project that shares rows is not supported yet",
                "keep its name (a Swift name of your choice is 'swift_name: …')")
        }
        var expected = shipped
        expected.name = table.name
        expected.was = table.was
        expected.swiftName = table.swiftName
        expected.retired = table.retired
        expected.formerNames = table.formerNames
        // A column referencing its own table names it by the new name (a reference is logical).
        for index in expected.columns.indices where expected.columns[index].references == was {
            expected.columns[index].references = table.name
        }
        // An index named after the table (no 'name:') follows the table's name.
        if shipped.indexes.count == table.indexes.count {
            expected.indexes = zip(shipped.indexes, table.indexes).map { shipped, new in
                var renamed = shipped
                if shipped.name == Index.defaultName(table: was, columns: shipped.columns) {
                    renamed.name = Index.defaultName(table: table.name, columns: shipped.columns)
                }
                return renamed == new ? new : shipped
            }
        }
        if expected != table {
            return refused(
                "table '\(was)' is renamed to '\(table.name)' and changed in the same edit",
                "rename it as it shipped (the same columns, conflict mode, indexes and rules), generate, then make the other changes in a step of their own"
            )
        }
        return ([.renameTable(table)], [])
    }

    /// A shipped table whose `was` is not as it shipped: the contract step once the floor passed
    /// the rename, refused otherwise.
    static func tableRenameStep(
        old: Table, new: Table, floor: Int?, introducedIn: (String) -> Int?, locations: SourceLocations
    ) -> (changes: [SchemaChange], problems: [Diagnostic]) {
        let here = locations.location(table: new.name)
        guard old.was != new.was else { return ([], []) }
        guard let was = old.was else {
            return (
                [],
                [
                    Diagnostic(
                        here, "table '\(new.name)' shipped under this name, so it cannot have been '\(new.was ?? "")'",
                        hint: "'was' names a table's shipped name on its new name, for one rename at a time; remove it")
                ]
            )
        }
        if new.was != nil {
            return (
                [],
                [
                    Diagnostic(
                        here, "the rename of table '\(new.name)' changed from 'was: \(was)' to 'was: \(new.was ?? "")'",
                        hint: "put it back as it was")
                ]
            )
        }
        let record = SchemaChange.tableRenameRecord(from: was, to: new.name)
        if let number = introducedIn(record), let floor, floor >= number {
            return ([.finishTableRename(new, from: was)], [])
        }
        let number = introducedIn(record).map(String.init) ?? "the number of the migration that renamed it"
        return (
            [],
            [
                Diagnostic(
                    here, "the rename of table '\(was)' to '\(new.name)' cannot finish yet: 'oldest_writer' has not passed it",
                    hint:
                        "builds older than that step still write '\(was)': set 'oldest_writer: \(number)' (or higher) at the top of schema.yaml once no such build may write, or keep 'was: \(was)' on '\(new.name)'"
                )
            ]
        )
    }
}

extension Index {
    /// The name of an index schema.yaml gives no 'name:': made from its table and columns.
    public static func defaultName(table: String, columns: [String]) -> String { "\(table)_\(columns.joined(separator: "_"))_idx" }

    /// The name this index of `table` had while the table was `old` (decision 0054): an index
    /// named after its table was named after the old name; nil when it keeps its name.
    public func name(whileNamed old: String, table: String) -> String? {
        name == Self.defaultName(table: table, columns: columns) ? Self.defaultName(table: old, columns: columns) : nil
    }
}
