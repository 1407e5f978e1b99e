import HopeSyncSchema

/// Rust: the table lists and the local migrations as constants (`rust/tables.rs.mustache`),
/// needing no crates, for the desktop app's own sync code.
package struct RustRenderer: Sendable {
    package static let path = "rust/tables.rs"

    let templates: TemplateSet

    package init(templates: TemplateSet) {
        self.templates = templates
    }

    package func tablesSource(for schema: Schema, migrations: [(Int, String, String)]) throws -> String {
        try templates.render(
            RustTablesContext(
                tables: schema.tables.map(tableContext),
                migrations: migrations.map { number, name, sql in
                    EmbeddedMigration(version: String(number), name: name, sql: RustLiteral.string(sql))
                }, pullFunction: ServerFunctions.pull))
    }

    private func tableContext(_ table: Table) -> RustTablesContext.Table {
        let conflict: String =
            switch table.conflict {
            case .lww where table.merge == .column:
                "ConflictMode::LastWriterWinsByColumn { stamped: &[\(table.stampedColumns.map { "\"\($0.name)\"" }.joined(separator: ", "))] }"
            case .lww: "ConflictMode::LastWriterWinsByRow"
            case .version(let kind): "ConflictMode::Version { column: \"\(kind.columnName)\" }"
            }
        return RustTablesContext.Table(
            name: table.name,
            constant: RustNames.constant(table),
            columns: table.syncedColumns.map { column in
                .init(name: column.name, type: column.type.sqliteType, nullable: SQLiteRenderer.isNullable(column) ? "true" : "false")
            },
            conflict: conflict,
            lookback: String(table.pullOrdering.distance),
            openRowRule: table.openRowRule.map { "Some((\"\($0.start)\", \"\($0.end)\"))" } ?? "None",
            files: table.columns.compactMap { column in
                column.type.bucket.map { .init(column: column.name, bucket: $0, download: column.download == .eager ? "Eager" : "OnRead") }
            })
    }
}
