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
                tables: schema.clientTables.flatMap { table in
                    [tableContext(table)] + (table.membershipTable.map { [tableContext($0)] } ?? [])
                },
                shared: schema.tables.contains { $0.sharing != nil },
                migrations: migrations.map { number, name, sql in
                    EmbeddedMigration(version: String(number), name: name, sql: RustLiteral.string(sql))
                }, pullFunction: ServerFunctions.pull, schemaVersion: String(migrations.last?.0 ?? 0)))
    }

    private func tableContext(_ table: Table) -> RustTablesContext.Table {
        RustTablesContext.Table(
            name: table.name,
            constant: RustNames.constant(table),
            columns: table.syncedColumns.map(columnContext),
            conflict: conflictLiteral(table.conflict, stamped: table.merge == .column ? table.stampedColumns : nil),
            lookback: String(table.pullOrdering.distance),
            openRowRule: table.openRowRule.map { "Some((\"\($0.start)\", \"\($0.end)\"))" } ?? "None",
            files: table.columns.filter { !$0.isDeprecated }.compactMap { column in
                column.type.bucket.map { .init(column: column.name, bucket: $0, download: column.download == .eager ? "Eager" : "OnRead") }
            },
            scope: table.sharing.map { scopeExpression($0, of: table) })
    }

    /// A membership table (its conflict mode: ``MembershipTable/conflict``).
    private func tableContext(_ members: MembershipTable) -> RustTablesContext.Table {
        RustTablesContext.Table(
            name: members.name,
            constant: RustNames.constant(named: members.name),
            columns: members.columns.map(columnContext),
            conflict: conflictLiteral(MembershipTable.conflict, stamped: nil),
            lookback: "0",
            openRowRule: "None",
            files: [],
            scope: "Scope::Membership { scope_table: \"\(members.scopeTable)\" }")
    }

    /// `stamped`: an lww table's columns merged one by one (nil: it merges whole rows).
    private func conflictLiteral(_ conflict: ConflictMode, stamped: [SyncedColumn]?) -> String {
        switch (conflict, stamped) {
        case (.lww, let stamped?):
            "ConflictMode::LastWriterWinsByColumn { stamped: &[\(stamped.map { "\"\($0.name)\"" }.joined(separator: ", "))] }"
        case (.lww, nil): "ConflictMode::LastWriterWinsByRow"
        case (.version(let kind), _): "ConflictMode::Version { column: \"\(kind.columnName)\" }"
        }
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
