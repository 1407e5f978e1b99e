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
                tables: schema.tables.flatMap { table in [tableContext(table)] + (table.membershipTable.map { [tableContext($0)] } ?? []) },
                shared: schema.tables.contains { $0.sharing != nil },
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
            columns: table.syncedColumns.map(columnContext),
            conflict: conflict,
            lookback: String(table.pullOrdering.distance),
            openRowRule: table.openRowRule.map { "Some((\"\($0.start)\", \"\($0.end)\"))" } ?? "None",
            files: table.columns.compactMap { column in
                column.type.bucket.map { .init(column: column.name, bucket: $0, download: column.download == .eager ? "Eager" : "OnRead") }
            },
            scope: table.sharing.map { scopeExpression($0, of: table) })
    }

    /// A membership table: its conflict mode is a version table's, as in the Swift list, so a
    /// pulled row replaces the device's copy; it has no version column, since no device writes it.
    private func tableContext(_ members: MembershipTable) -> RustTablesContext.Table {
        RustTablesContext.Table(
            name: members.name,
            constant: RustNames.constant(named: members.name),
            columns: members.columns.map(columnContext),
            conflict: "ConflictMode::Version { column: \"\(VersionKind.integer.columnName)\" }",
            lookback: "0",
            openRowRule: "None",
            files: [],
            scope: "Scope::Membership { scope_table: \"\(members.scopeTable)\" }")
    }

    private func columnContext(_ column: SyncedColumn) -> RustTablesContext.Table.Column {
        .init(name: column.name, type: column.type.sqliteType, nullable: SQLiteRenderer.isNullable(column) ? "true" : "false")
    }

    private func scopeExpression(_ sharing: TableSharing, of table: Table) -> String {
        let members = MembershipTable.name(of: table.scopeTable ?? table.name)
        return switch sharing {
        case .scope:
            "Scope::Scope { members: \"\(members)\" }"
        case .scoped(let column, let scopeTable):
            "Scope::Scoped { column: \"\(column)\", scope_table: \"\(scopeTable)\", members: \"\(members)\" }"
        case .follows(let through, let column, let scopeTable):
            "Scope::Follows { through: \"\(through)\", column: \"\(column)\", scope_table: \"\(scopeTable)\", members: \"\(members)\" }"
        }
    }
}
