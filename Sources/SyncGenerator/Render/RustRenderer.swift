import SyncSchema

/// Rust: the table lists and the local migrations as constants (`rust/tables.rs.mustache`),
/// needing no crates, for the desktop app's own sync code.
public struct RustRenderer: Sendable {
    let templates: TemplateSet

    public init(templates: TemplateSet) {
        self.templates = templates
    }

    public func tablesSource(for schema: Schema, migrations: [(Int, String, String)]) throws -> String {
        try templates.render("rust/tables.rs.mustache", [
            "tables": .list(schema.tables.map(tableContext)),
            "migrations": .list(migrations.map { number, name, sql in
                ["version": .text(String(number)), "name": .text(name), "sql": .text(RustLiteral.string(sql))]
            }),
        ])
    }

    private func tableContext(_ table: Table) -> TemplateValue {
        let conflict: String = switch table.conflict {
        case .lww where table.merge == .column:
            "ConflictMode::LastWriterWinsByColumn { stamped: &[\(table.stampedColumns.map { "\"\($0.name)\"" }.joined(separator: ", "))] }"
        case .lww: "ConflictMode::LastWriterWinsByRow"
        case .version(let kind): "ConflictMode::Version { column: \"\(kind.columnName)\" }"
        }
        return [
            "name": .text(table.name),
            "constant": .text(RustNames.constant(table)),
            "columns": .list(table.syncedColumns.map { column in
                [
                    "name": .text(column.name),
                    "type": .text(column.type.sqliteType),
                    "nullable": .text(SQLiteRenderer.isNullable(column) ? "true" : "false"),
                ]
            }),
            "conflict": .text(conflict),
            "lookback": .text(String(table.pullOrdering.distance)),
            "openRowRule": .text(table.openRowRule.map { "Some((\"\($0.start)\", \"\($0.end)\"))" } ?? "None"),
        ]
    }
}
