/// Backfills (decision 0053): `backfill:` fills a column in the edit that adds it, once, on
/// the server. A shipped backfill ran already: keeping it changes nothing (the snapshot keeps
/// it also when schema.yaml drops it), changing it is refused.
extension SchemaDiff {
    /// What is wrong with the backfills of `new`; `old` is the shipped table, nil for a table
    /// this change creates.
    static func backfillProblems(
        old: Table?, new: Table, introducedIn: (String) -> Int?, locations: SourceLocations
    ) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for column in new.columns {
            guard let backfill = column.backfill else { continue }
            let here = locations.location(table: new.name, column: column.name)
            let qualified = "\(new.name).\(column.name)"
            guard let old else {
                problems.append(
                    Diagnostic(
                        here, "column '\(qualified)' of new table '\(new.name)' has a backfill",
                        hint: "a new table has no rows to fill: remove 'backfill'"))
                continue
            }
            if let shipped = old.column(named: column.name) {
                if shipped.backfill == nil {
                    problems.append(
                        Diagnostic(
                            here, "column '\(qualified)' shipped without a backfill",
                            hint:
                                "a backfill runs in the edit that adds its column: remove 'backfill', or add a new column with it beside this one"
                        ))
                } else if shipped.backfill != backfill {
                    let number = introducedIn(SchemaChange.backfillRecord(new.name, column.name)).map { " (migration \($0))" } ?? ""
                    problems.append(
                        Diagnostic(
                            here, "the backfill of '\(qualified)' changed, but it ran once already\(number)",
                            hint:
                                "a backfill runs once: put back the expression it shipped with, or remove 'backfill' (the snapshot keeps the one that ran)"
                        ))
                }
                continue
            }
            if column.was != nil {
                problems.append(
                    Diagnostic(
                        here, "renamed column '\(qualified)' has a backfill",
                        hint: "a rename's new name is filled from its old name: remove 'backfill'"))
            } else if column.isDeprecated {
                continue // a new column cannot be deprecated: refused as such
            } else if !column.isNullable || column.defaultValue != nil {
                problems.append(
                    Diagnostic(
                        here, "backfilled column '\(qualified)' is not nullable without a default",
                        hint:
                            "a backfill fills the rows where the column is null, once: make it nullable ('\(column.type.keyword)?' or 'nullable: true') without a 'default'"
                    ))
            } else if column.type.bucket != nil {
                problems.append(
                    Diagnostic(
                        here, "file column '\(qualified)' cannot be backfilled",
                        hint: "a file column names bytes a device uploaded: remove 'backfill'"))
            }
        }
        return problems
    }
}

extension SchemaChange {
    /// How the snapshot records a backfill, in the migration that added its column and ran it
    /// (read back as no change: the column's `column t.c` is the change).
    public static func backfillRecord(_ table: String, _ column: String) -> String { "backfill \(table).\(column)" }
}

extension Table {
    /// The table with no backfills: what a deprecated table is compared by (a shipped
    /// backfill may leave schema.yaml).
    var withoutBackfills: Table {
        var table = self
        for index in table.columns.indices { table.columns[index].backfill = nil }
        return table
    }
}
