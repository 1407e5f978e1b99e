/// The column lifecycle (decision 0052), one edit of schema.yaml a step: `was:` renames (the
/// server keeps both names equal), removing `was:` finishes it, `deprecated: true` leaves a
/// column out of new builds, removing it then drops it. Finishing and removing wait until
/// `oldest_writer` refuses every build that still writes the old column, and the server then
/// serves it to their pulls read only (a retired column), so their pulls never fail.
extension SchemaDiff {
    static func lifecycleChanges(
        old: Table, new: Table, floor: Int?, introducedIn: (String) -> Int?, locations: SourceLocations
    ) -> (changes: [SchemaChange], problems: [Diagnostic]) {
        var changes: [SchemaChange] = []
        var problems: [Diagnostic] = []
        let qualified = { (column: String) in "\(new.name).\(column)" }
        let here = { (column: String) in locations.location(table: new.name, column: column) }
        /// Whether the floor passed the migration that recorded `record`.
        func passed(_ record: String) -> Bool {
            guard let number = introducedIn(record), let floor else { return false }
            return floor >= number
        }
        func waitHint(_ record: String, _ keep: String) -> String {
            let number = introducedIn(record).map(String.init) ?? "the number of the migration that made that step"
            return
                "builds older than that step still write it: set 'oldest_writer: \(number)' (or higher) at the top of schema.yaml once no such build may write, or keep \(keep)"
        }
        let special = specialColumns(old).union(specialColumns(new))

        for column in new.columns {
            let shipped = old.column(named: column.name)
            if let was = column.was {
                if let shipped {
                    if shipped.was != was {
                        problems.append(
                            Diagnostic(
                                here(column.name),
                                shipped.was == nil
                                    ? "column '\(qualified(column.name))' shipped under this name, so it cannot have been '\(was)'"
                                    : "the rename of '\(qualified(column.name))' changed from 'was: \(shipped.was ?? "")' to 'was: \(was)'",
                                hint: "'was' names a column's shipped name on its new name, for one rename at a time; put it back as it was"
                            ))
                    }
                    continue
                }
                guard let former = old.column(named: was), former.was == nil, !former.isDeprecated else {
                    problems.append(
                        Diagnostic(
                            here(column.name),
                            "column '\(qualified(column.name))' was '\(was)', but '\(new.name)' has no shipped column '\(was)' to rename",
                            hint:
                                "'was' names the column's name in the newest migration, a column that is neither deprecated nor being renamed"
                        ))
                    continue
                }
                if new.columns.filter({ $0.was == was }).count > 1 {
                    problems.append(
                        Diagnostic(
                            here(column.name), "'\(qualified(was))' is renamed twice",
                            hint: "a column has one new name: keep 'was: \(was)' on one column"))
                } else if new.column(named: was) != nil {
                    problems.append(
                        Diagnostic(
                            here(was), "'\(qualified(was))' is renamed to '\(column.name)' but is still in schema.yaml",
                            hint: "a rename moves the name: remove '\(was)' and keep 'was: \(was)' on '\(column.name)'"))
                } else if let problem = retypeProblem(former, column, qualified(was), at: here(column.name)) {
                    problems.append(problem)
                } else if special.contains(was) || special.contains(column.name) {
                    problems.append(
                        Diagnostic(
                            here(column.name), "'\(qualified(was))' cannot be renamed: an index, a rule or the table's scope names it",
                            hint: "renaming such a column is not supported yet; add a new column and deprecate this one instead"))
                } else if let renamed = new.serverColumns.first(where: { $0.name == column.name }) {
                    changes.append(.renameColumn(renamed, to: new))
                }
            } else if let shipped, let was = shipped.was {
                let record = SchemaChange.renameRecord(new.name, from: was, to: column.name)
                guard passed(record) else {
                    problems.append(
                        Diagnostic(
                            here(column.name),
                            "the rename of '\(qualified(was))' to '\(column.name)' cannot finish yet: 'oldest_writer' has not passed it",
                            hint: waitHint(record, "'was: \(was)' on '\(column.name)'")))
                    continue
                }
                var former = shipped
                former.name = was
                former.was = nil
                former.type = shipped.retype?.from ?? shipped.type
                former.retype = nil
                changes.append(.retireColumn(RetiredColumn(column: former, copies: column.name, retype: shipped.retype), of: new))
            }
        }

        for column in new.columns {
            guard let shipped = old.column(named: column.name) else {
                if column.isDeprecated {
                    problems.append(
                        Diagnostic(
                            here(column.name), "new column '\(qualified(column.name))' is deprecated",
                            hint: "only a shipped column can be deprecated: remove 'deprecated', or leave the column out"))
                }
                continue
            }
            if column.isDeprecated, !shipped.isDeprecated {
                if shipped.was != nil || column.was != nil {
                    problems.append(
                        Diagnostic(
                            here(column.name), "'\(qualified(column.name))' is deprecated in the middle of a rename",
                            hint: "finish the rename first (remove 'was' once 'oldest_writer' allows), then deprecate"))
                } else if special.contains(column.name) {
                    problems.append(
                        Diagnostic(
                            here(column.name),
                            "'\(qualified(column.name))' cannot be deprecated: an index, a rule or the table's scope names it",
                            hint: "devices drop a deprecated column, and dropping an index is not supported yet; keep the column"))
                } else if !column.isNullable, column.defaultValue == nil {
                    problems.append(
                        Diagnostic(
                            here(column.name), "deprecated column '\(qualified(column.name))' is NOT NULL without a default",
                            hint:
                                "new builds stop sending it, so the server needs a value for the rows they insert (and old builds need one to read): add 'default: …' in the same edit"
                        ))
                } else {
                    changes.append(.deprecateColumn(SyncedColumn(user: column), of: new))
                }
            } else if !column.isDeprecated, shipped.isDeprecated {
                problems.append(
                    Diagnostic(
                        here(column.name), "'\(qualified(column.name))' cannot stop being deprecated",
                        hint: "devices that updated dropped it with its values; add a new column instead"))
            }
        }

        for shipped in old.columns where new.column(named: shipped.name) == nil {
            if shipped.was != nil {
                problems.append(
                    Diagnostic(
                        locations.location(table: new.name), "'\(qualified(shipped.name))' was removed in the middle of its rename",
                        hint: "keep it (and its 'was') until the rename is finished, then deprecate it"))
            } else if shipped.isDeprecated {
                let record = SchemaChange.deprecateRecord(new.name, shipped.name)
                if passed(record) {
                    changes.append(.retireColumn(RetiredColumn(column: shipped), of: new))
                } else {
                    problems.append(
                        Diagnostic(
                            locations.location(table: new.name),
                            "deprecated column '\(qualified(shipped.name))' cannot be removed yet: 'oldest_writer' has not passed its deprecation",
                            hint: waitHint(record, "it in schema.yaml with 'deprecated: true'")))
                }
            }
        }

        for column in new.columns
        where old.column(named: column.name) == nil && old.retired.contains(where: { $0.column.name == column.name }) {
            problems.append(
                Diagnostic(
                    here(column.name), "'\(qualified(column.name))' is a retired name: the server still serves it to old builds",
                    hint: "choose another name"))
        }
        return (changes, problems)
    }

    /// A rename keeps the column as it was, but for the type a retype states (between the types
    /// SQLite's CAST converts, nullability kept, no default on either side).
    private static func retypeProblem(_ former: Column, _ column: Column, _ old: String, at here: SourceLocation) -> Diagnostic? {
        guard let retype = column.retype else {
            if former.type != column.type || former.isNullable != column.isNullable || former.defaultValue != column.defaultValue {
                return Diagnostic(
                    here, "the rename of '\(old)' to '\(column.name)' also changes its type, nullability or default",
                    hint:
                        "rename keeping the column as it is; to change the type too, write 'was: { name: …, type: …, to: …, back: … }' with the conversions"
                )
            }
            return nil
        }
        if retype.from != former.type {
            return Diagnostic(
                here, "'was' says '\(old)' is \(retype.from.keyword), but it shipped as \(former.type.keyword)",
                hint: "write 'type: \(former.type.keyword)' in 'was'")
        }
        if former.type == column.type || !Retype.types.contains(column.type) {
            return Diagnostic(
                here,
                "a retype of '\(old)' converts between two of \(Retype.types.map(\.keyword).joined(separator: ", ")), not \(former.type.keyword) to \(column.type.keyword)",
                hint: "keep the type (write 'was: \(former.name)'), or add a new column and deprecate this one")
        }
        if former.isNullable != column.isNullable || former.defaultValue != nil || column.defaultValue != nil {
            return Diagnostic(
                here, "a retype of '\(old)' keeps its nullability and takes no default",
                hint: "change those in steps of their own (a new column beside it)")
        }
        return nil
    }

    /// A table is deprecated as it shipped (shared tables not yet: their members' devices hold
    /// rows by scope), and stays as it is, deprecated.
    static func tableDeprecation(old: Table, new: Table, locations: SourceLocations) -> (changes: [SchemaChange], problems: [Diagnostic]) {
        let here = locations.location(table: new.name)
        if old.isDeprecated, !new.isDeprecated {
            return (
                [],
                [
                    Diagnostic(
                        here, "'\(new.name)' cannot stop being deprecated", hint: "devices that updated dropped it; add a new table instead"
                    )
                ]
            )
        }
        var shipped = old
        shipped.isDeprecated = new.isDeprecated
        shipped.retired = new.retired
        shipped.formerNames = new.formerNames
        if shipped.was != nil || new.was != nil {
            return (
                [],
                [
                    Diagnostic(
                        here, "'\(new.name)' is deprecated in the middle of its rename", hint: "finish the rename first, then deprecate")
                ]
            )
        }
        if shipped.withoutBackfills != new.withoutBackfills {
            return (
                [],
                [
                    Diagnostic(
                        here, "deprecated table '\(new.name)' changed",
                        hint: "a table is deprecated as it shipped and then stays so: undo the other changes")
                ]
            )
        }
        if old.isDeprecated { return ([], []) }
        if new.sharing != nil {
            return (
                [], [Diagnostic(here, "shared table '\(new.name)' cannot be deprecated yet", hint: "keep it; stop using it in the app")]
            )
        }
        return ([.deprecateTable(new)], [])
    }

    /// A table gone from schema.yaml: refused but for a deprecated table once `oldest_writer`
    /// passed its deprecation.
    static func removedTableProblem(
        _ table: Table, floor: Int?, introducedIn: (String) -> Int?, in locations: SourceLocations
    ) -> Diagnostic? {
        let here = SourceLocation(file: locations.file, line: 1, column: 1)
        guard table.isDeprecated else {
            return Diagnostic(
                here, "table '\(table.name)' was removed or renamed, which shipped clients would still sync",
                hint:
                    "keep the table in schema.yaml; mark it 'deprecated: true' so new builds leave it out while the server keeps it for old ones, or rename it with 'was: \(table.name)' under its new name"
            )
        }
        let record = SchemaChange.deprecateRecord(table.name)
        if let number = introducedIn(record), let floor, floor >= number { return nil }
        let number = introducedIn(record).map(String.init) ?? "the number of the migration that deprecated it"
        return Diagnostic(
            here, "deprecated table '\(table.name)' cannot leave schema.yaml yet: 'oldest_writer' has not passed its deprecation",
            hint:
                "builds older than that step still write it: set 'oldest_writer: \(number)' (or higher) once no such build may write, or keep it with 'deprecated: true'"
        )
    }

    /// A new table has nothing shipped to rename or deprecate.
    static func lifecycleInNewTable(_ table: Table, locations: SourceLocations) -> [Diagnostic] {
        if table.isDeprecated {
            return [
                Diagnostic(
                    locations.location(table: table.name), "new table '\(table.name)' is deprecated",
                    hint: "only a shipped table can be deprecated: remove 'deprecated', or leave the table out")
            ]
        }
        return table.columns.filter { $0.was != nil || $0.isDeprecated }.map { column in
            Diagnostic(
                locations.location(table: table.name, column: column.name),
                "column '\(table.name).\(column.name)' of new table '\(table.name)' is \(column.was != nil ? "renamed ('was')" : "deprecated")",
                hint:
                    "a table that has not shipped has nothing to rename or deprecate: \(column.was != nil ? "remove 'was'" : "leave the column out")"
            )
        }
    }

    /// The columns an index, a rule or the sharing names: renaming or dropping them locally
    /// would need those rebuilt.
    private static func specialColumns(_ table: Table) -> Set<String> {
        var names = Set(table.indexes.flatMap(\.columns))
        if let rule = table.openRowRule { names.formUnion([rule.start, rule.end]) }
        switch table.sharing {
        case .scoped(let column, _)?: names.insert(column)
        case .follows(let through, let column, _)?: names.formUnion([through, column])
        case .scope?, nil: break
        }
        return names
    }
}
