import SyncSchema

/// Renders the server side of a schema for Supabase: numbered migrations and one idempotent
/// schema.sql, through the templates in supabase/. Output is deterministic.
public struct SupabaseRenderer: Sendable {
    public let templates: TemplateSet

    public init(templates: TemplateSet) {
        self.templates = templates
    }

    /// One migration file: the sequence when the migration creates a table, then each step.
    public func migrationSQL(_ migration: Migration) throws -> String {
        let steps = try migration.changes.map { change -> TemplateValue in ["sql": .text(try changeSQL(change))] }
        let createsTable = migration.changes.contains { if case .createTable = $0 { true } else { false } }
        return try templates.render("supabase/migration.sql.mustache", [
            "number": .text(String(migration.number)),
            "name": .text(migration.name),
            "createsSequence": .bool(createsTable),
            "sequence": .text(try sequenceSQL()),
            "steps": .list(steps),
        ])
    }

    /// The whole schema, safe to apply any number of times, also over an older version of it.
    public func schemaSQL(_ schema: Schema) throws -> String {
        let tables = try schema.tables.map { table -> TemplateValue in
            ["sql": .text(try tableSQL(table, upgrading: true))]
        }
        return try templates.render("supabase/schema.sql.mustache", [
            "sequence": .text(try sequenceSQL()),
            "tables": .list(tables),
        ])
    }

    func changeSQL(_ change: SchemaChange) throws -> String {
        switch change {
        case .createTable(let table): try tableSQL(table, upgrading: false)
        case .addColumn(let column, let table): try addColumnSQL(column, to: table)
        case .addIndex(let index, let table): try indexSQL(index, on: table)
        case .replaceServerIndex(let index, let table): try indexSQL(index, on: table, replacing: true)
        case .replaceTriggers(let table): try triggersSQL(table, replacing: true)
        }
    }

    // MARK: Fragments (also the fixes `verify` proposes)

    func sequenceSQL() throws -> String {
        try fragment("sequence", [:])
    }

    /// A table with everything it needs: columns, indexes, grants, policies, triggers.
    func tableSQL(_ table: Table, upgrading: Bool) throws -> String {
        // Over an older database, schema.sql also replaces a unique index made across all owners.
        let indexes = try ([pullIndex(table)] + table.indexes).map { index -> TemplateValue in
            ["sql": .text(try indexSQL(index, on: table, replacing: upgrading && index.isUnique))]
        }
        var context = SupabaseContext.table(table)
        context["createTable"] = .text(try createTableSQL(table, upgrading: upgrading))
        context["indexes"] = .list(indexes)
        context["access"] = .text(try accessSQL(table))
        // Over an older database, schema.sql also drops triggers the table no longer has.
        context["triggers"] = .text(try triggersSQL(table, replacing: upgrading))
        return try fragment("table", .object(context))
    }

    func createTableSQL(_ table: Table, upgrading: Bool) throws -> String {
        let columns = try table.syncedColumns.map { column in
            (definition: try columnDefinition(column, of: table), isUser: column.role == .user)
        }
        return try fragment("create_table", [
            "table": .text(table.name),
            "columns": .list(columns.map { ["definition": .text($0.definition)] }),
            "userColumns": .list(columns.filter(\.isUser).map { ["definition": .text($0.definition)] }),
            "upgrading": .bool(upgrading),
        ])
    }

    func addColumnSQL(_ column: SyncedColumn, to table: Table) throws -> String {
        try fragment("add_column", [
            "table": .text(table.name),
            "definition": .text(try columnDefinition(column, of: table)),
        ])
    }

    /// `replacing` drops an index of the same name first, so that a unique index made across
    /// all owners becomes per owner.
    func indexSQL(_ index: Index, on table: Table, replacing: Bool = false) throws -> String {
        try fragment("index", SupabaseContext.index(index, on: table, replacing: replacing))
    }

    func accessSQL(_ table: Table) throws -> String {
        try fragment("access", ["table": .text(table.name)])
    }

    func triggersSQL(_ table: Table, replacing: Bool) throws -> String {
        var context = SupabaseContext.table(table)
        context["replacing"] = .bool(replacing)
        return try fragment("triggers", .object(context))
    }

    func pullIndex(_ table: Table) -> Index {
        Index(name: SupabaseContext.pullIndexName(table), columns: [ReservedColumn.owner, ReservedColumn.serverSeq])
    }

    private func columnDefinition(_ column: SyncedColumn, of table: Table) throws -> String {
        try fragment("column", .object(SupabaseContext.column(column, of: table)))
    }

    /// A rendered fragment without its final newline, so frames decide the spacing.
    private func fragment(_ name: String, _ context: TemplateValue) throws -> String {
        var text = try templates.render("supabase/\(name).sql.mustache", context)
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
