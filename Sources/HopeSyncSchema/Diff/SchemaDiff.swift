/// Compares the schema of the newest migration with schema.yaml. Every destructive change is
/// refused, because a migration cannot take a column back from the clients already in the
/// field: they keep sending it, and a server without it answers their every push with PGRST204.
/// A rename, a deprecation and a removal go step by step instead (decision 0052,
/// SchemaDiff+Lifecycle.swift).
public enum SchemaDiff {
    public static func changes(from old: Schema, to new: ParsedSchema) throws(SchemaError) -> [SchemaChange] {
        try changes(from: old, to: new, introducedIn: { _ in nil })
    }

    /// `introducedIn` answers the number of the migration that recorded a change (see
    /// ``SchemaChange/recorded``): a step that finishes a rename or removes a column waits
    /// until `oldest_writer` reaches it.
    package static func changes(
        from old: Schema, to new: ParsedSchema, introducedIn: (String) -> Int?
    ) throws(SchemaError) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        var problems: [Diagnostic] = []
        let locations = new.locations

        // A table schema.yaml renames (`was:`) is not removed (decision 0054).
        for oldTable in old.tables where new.schema.table(named: oldTable.name) == nil && !isRenamed(oldTable.name, in: new.schema) {
            // A deprecated table leaves schema.yaml once the floor passed its deprecation; the
            // snapshot carries it on (the server keeps serving it to the builds below the floor).
            if let problem = removedTableProblem(oldTable, floor: new.schema.oldestWriter, introducedIn: introducedIn, in: locations) {
                problems.append(problem)
            }
        }

        for table in new.schema.tables {
            guard let oldTable = old.table(named: table.name) else {
                if let rename = tableRename(table, old: old, new: new.schema, locations: locations) {
                    changes += rename.changes
                    problems += rename.problems
                    continue
                }
                let steps =
                    lifecycleInNewTable(table, locations: locations)
                    + backfillProblems(old: nil, new: table, introducedIn: introducedIn, locations: locations)
                if steps.isEmpty { changes.append(.createTable(table)) } else { problems += steps }
                continue
            }
            let here = locations.location(table: table.name)
            let renaming = tableRenameStep(
                old: oldTable, new: table, floor: new.schema.oldestWriter, introducedIn: introducedIn, locations: locations)
            changes += renaming.changes
            problems += renaming.problems
            if oldTable.isDeprecated || table.isDeprecated {
                let step = tableDeprecation(old: oldTable, new: table, locations: locations)
                changes += step.changes
                problems += step.problems
                continue
            }
            if oldTable.conflict != table.conflict {
                problems.append(
                    Diagnostic(
                        here, "the conflict mode of '\(table.name)' cannot change once shipped",
                        hint: "old clients keep sending the old conflict columns; create a new table with the new mode instead"
                    ))
            }
            if oldTable.conflict == .lww, table.conflict == .lww, oldTable.merge != table.merge {
                if table.merge == .column {
                    // Both databases add the stamps; the server's trigger learns to merge.
                    changes += [.addColumn(SyncedColumn(.columnStamps), to: table), .replaceTriggers(table)]
                } else {
                    problems.append(
                        Diagnostic(
                            here, "'\(table.name)' cannot go back to 'merge: row' once it merges columns",
                            hint: "devices in the field keep the column stamps and send them; keep 'merge: column'"
                        ))
                }
            }
            if oldTable.sharing != table.sharing {
                if oldTable.sharing == nil {
                    // A shared table's rows say who wrote them last (updated_by), from now on.
                    changes += [.addColumn(SyncedColumn(.updatedBy), to: table), .shareTable(table)]
                } else {
                    problems.append(
                        Diagnostic(
                            here, "the 'scope' of '\(table.name)' cannot change once shared",
                            hint:
                                "devices in the field hold its rows by scope, and its members would lose them; keep the scope and move rows between scopes in the app instead"
                        ))
                }
            }
            problems += columnProblems(old: oldTable, new: table, locations: locations)
            problems += backfillProblems(old: oldTable, new: table, introducedIn: introducedIn, locations: locations)
            let lifecycle = lifecycleChanges(
                old: oldTable, new: table, floor: new.schema.oldestWriter, introducedIn: introducedIn, locations: locations)
            changes += lifecycle.changes
            problems += lifecycle.problems
            // The write trigger keeps a renamed pair equal, and forgets a retired name.
            if lifecycle.changes.contains(where: \.changesServerCode) { changes.append(.replaceTriggers(table)) }
            // A renamed column is the rename's; a deprecated one is refused above.
            for column in table.columns where oldTable.column(named: column.name) == nil && column.was == nil && !column.isDeprecated {
                if !column.isNullable && column.defaultValue == nil {
                    problems.append(
                        Diagnostic(
                            locations.location(table: table.name, column: column.name),
                            "new column '\(table.name).\(column.name)' is NOT NULL without a default",
                            hint:
                                "existing rows and old clients have no value for it: make it nullable ('\(column.type.keyword)?') or give it a default"
                        ))
                } else if !column.isNullable, column.defaultValue == .now {
                    problems.append(
                        Diagnostic(
                            locations.location(table: table.name, column: column.name),
                            "new column '\(table.name).\(column.name)' is NOT NULL with default now, which SQLite cannot add to an existing table",
                            hint: "make it nullable ('timestamp?')"
                        ))
                } else {
                    changes.append(.addColumn(SyncedColumn(user: column), to: table))
                }
            }
            for index in oldTable.indexes {
                guard let newIndex = table.indexes.first(where: { $0.name == index.name }) else {
                    problems.append(
                        Diagnostic(
                            here, "index '\(index.name)' was removed", hint: "keep it in schema.yaml; dropping indexes is not supported yet"
                        ))
                    continue
                }
                if newIndex != index {
                    problems.append(
                        Diagnostic(
                            here, "index '\(index.name)' changed",
                            hint: "indexes cannot change once shipped; add a new index with another name"))
                }
            }
            for index in table.indexes where !oldTable.indexes.contains(where: { $0.name == index.name }) {
                if let problem = uniqueIndexProblem(index, old: oldTable, new: table, at: here) {
                    problems.append(problem)
                } else {
                    changes.append(.addIndex(index, on: table))
                }
            }
            if oldTable.exactOrdering != table.exactOrdering || oldTable.rules != table.rules,
                !changes.contains(.replaceTriggers(table))
            {
                changes.append(.replaceTriggers(table))
            }
        }
        if !problems.isEmpty { throw SchemaError(problems) }
        return changes
    }

    private static func columnProblems(old: Table, new: Table, locations: SourceLocations) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        let added = new.columns.filter { old.column(named: $0.name) == nil }
        for column in old.columns {
            guard let changed = new.column(named: column.name) else {
                // A rename, or the removal of a deprecated column: the lifecycle's to judge.
                if column.isDeprecated || column.was != nil || new.columns.contains(where: { $0.was == column.name }) { continue }
                let renamed = added.first { $0.type == column.type }
                problems.append(
                    Diagnostic(
                        locations.location(table: new.name),
                        "column '\(new.name).\(column.name)' was removed\(renamed.map { " (renamed to '\($0.name)'?)" } ?? "")",
                        hint:
                            "clients already in the field keep sending '\(column.name)', so dropping it breaks their every push (PGRST204): mark it 'deprecated: true' first and remove it once 'oldest_writer' passes that migration, or rename it with 'was: \(column.name)' on the new name"
                    ))
                continue
            }
            let here = locations.location(table: new.name, column: column.name)
            if case .enumeration(let oldValues) = column.type, case .enumeration(let newValues) = changed.type, oldValues != newValues {
                problems.append(enumValuesChanged(from: oldValues, to: newValues, column: "\(new.name).\(column.name)", at: here))
            } else if changed.type != column.type {
                problems.append(
                    Diagnostic(
                        here, "column '\(new.name).\(column.name)' changed type from \(column.type.keyword) to \(changed.type.keyword)",
                        hint:
                            "old clients keep sending the old type; between text, int and double rename it as you retype it ('was: { name: \(column.name), type: \(column.type.keyword), to: …, back: … }' on a new name), else add a new column and deprecate this one"
                    ))
            } else if changed.isNullable != column.isNullable {
                problems.append(
                    Diagnostic(
                        here, "column '\(new.name).\(column.name)' changed nullability",
                        hint: "old clients and existing rows follow the shipped rule; add a new column instead"
                    ))
            } else if changed.defaultValue != column.defaultValue,
                !(changed.isDeprecated && !column.isDeprecated && column.defaultValue == nil)
            {
                problems.append(
                    Diagnostic(
                        here, "the default of '\(new.name).\(column.name)' changed",
                        hint: "shipped local databases keep the old default; set the value in the app, or add a new column"
                    ))
            }
        }
        return problems
    }

    /// A unique index on a shipped table is refused: devices in the field may already hold rows
    /// that share its values (written offline, or before the index existed), and a device whose
    /// local `CREATE UNIQUE INDEX` fails cannot apply the migration and so cannot open its
    /// database. Nothing in a migration can choose which of a user's rows to give up. It is
    /// safe only when one of its columns is added in the same change, nullable and without a
    /// default: every existing row then holds NULL there, and NULLs never collide.
    private static func uniqueIndexProblem(_ index: Index, old: Table, new: Table, at here: SourceLocation) -> Diagnostic? {
        guard index.isUnique else { return nil }
        let fillsNothing = index.columns.contains { name in
            guard old.column(named: name) == nil, let column = new.column(named: name) else { return false }
            return column.isNullable && column.defaultValue == nil
        }
        if fillsNothing { return nil }
        return Diagnostic(
            here,
            "unique index '\(index.name)' cannot be added to shipped table '\(new.name)': devices may already hold rows that share its values, and a device whose local CREATE UNIQUE INDEX fails cannot open its database",
            hint:
                "add the index without 'unique: true', or make it unique in a new table, or over a nullable column without a default added in the same change (every existing row holds NULL there)"
        )
    }

    /// Enum values are fixed once shipped, added ones too: a shipped client decodes the column
    /// into its own enum and cannot read a value it does not know, and the CHECK of a shipped
    /// SQLite table cannot change without rebuilding the table.
    private static func enumValuesChanged(from old: [String], to new: [String], column: String, at here: SourceLocation) -> Diagnostic {
        let added = new.filter { !old.contains($0) }
        let removed = old.filter { !new.contains($0) }
        var what: [String] = []
        if !added.isEmpty { what.append("added " + added.map { "'\($0)'" }.joined(separator: ", ")) }
        if !removed.isEmpty { what.append("removed " + removed.map { "'\($0)'" }.joined(separator: ", ")) }
        if what.isEmpty { what.append("reordered them") }
        return Diagnostic(
            here, "the values of enum column '\(column)' cannot change once shipped (this \(what.joined(separator: " and ")))",
            hint:
                "clients in the field cannot read a value they do not know, and shipped local databases check the old list; add a new column (an enum with every value, or text) and fill it in the app"
        )
    }
}

extension SchemaChange {
    fileprivate var changesServerCode: Bool {
        switch self {
        case .renameColumn, .retireColumn: true
        default: false
        }
    }
}
