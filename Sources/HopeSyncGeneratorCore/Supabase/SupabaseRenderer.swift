import HopeSyncSchema

/// Renders the server side of a schema for Supabase: numbered migrations and one idempotent
/// schema.sql, through the templates in supabase/. Output is deterministic.
package struct SupabaseRenderer: Sendable {
    package static let schemaPath = "supabase/schema.sql"

    package let templates: TemplateSet

    package init(templates: TemplateSet) {
        self.templates = templates
    }

    /// One migration file: what the tables share when the migration creates a table, re-creates
    /// triggers (which may call a shared function that is new) or what they share renders
    /// differently now, then each change.
    package func migrationSQL(_ migration: Migration) throws -> String {
        let steps =
            try Self.viewsAround(
                migration.appliedChanges.map { RenderedSQL(sql: try changeSQL($0, in: migration.schema)) }, of: migration, renderer: self)
            + [try backfillsSQL(migration.backfills)].compactMap { $0.map(RenderedSQL.init) }
        let sharesCode = migration.changes.contains {
            switch $0 {
            case .createTable, .replaceTriggers, .shareTable, .renameTable: true
            default: false
            }
        }
        return try templates.render(
            SupabaseMigrationContext(
                number: String(migration.number), name: migration.name, createsSequence: sharesCode || migration.replacesSharedCode,
                sequence: try sequenceSQL(), sharing: try sharingSQL(migration.schema), steps: steps, pull: try pullSQL(migration.schema),
                writers: try writersSQL(migration.schema), buckets: try bucketsSQL(Self.buckets(addedBy: migration), in: migration.schema)))
    }

    /// What every table shares, as a migration or schema.sql makes it: the checksum the
    /// snapshot keeps of it tells when it renders differently.
    package func sharedSQL(_ schema: Schema) throws -> String {
        try sequenceSQL() + "\n" + (try sharingSQL(schema).map { $0 + "\n" } ?? "") + pullSQL(schema) + "\n" + writersSQL(schema)
    }

    /// Which builds may write: the version check on every table, the devices' hello and
    /// `oldest_writer` (decision 0051). After the tables: it puts a trigger on each.
    package func writersSQL(_ schema: Schema) throws -> String {
        try fragment(
            WritersContext(oldestWriter: schema.oldestWriter.map(String.init), tables: schema.tables.map { NamedTable(name: $0.name) }))
    }

    /// What every shared table uses (decision 0048), for a schema with a scope table; nil
    /// otherwise, so an unshared schema renders as before sharing existed.
    package func sharingSQL(_ schema: Schema) throws -> String? {
        schema.scopeTables.isEmpty ? nil : try fragment(SharingContext())
    }

    /// The pull function over every table of `schema`.
    package func pullSQL(_ schema: Schema) throws -> String {
        if !schema.scopeTables.isEmpty {
            return try fragment(SharedPullContext(function: ServerFunctions.pull, schema: schema))
        }
        return try fragment(PullContext(function: ServerFunctions.pull, tables: Self.pulledNames(schema)))
    }

    /// The whole schema, safe to apply any number of times, also over an older version of it.
    /// `columnOrder` is the order the migrations gave each table's columns: schema.sql makes
    /// the same, and adds to an older table what later migrations added. `backfills` run last,
    /// each once per database (decision 0053).
    package func schemaSQL(_ schema: Schema, columnOrder: ServerColumnOrder) throws -> String {
        try schemaSQL(schema, columnOrder: columnOrder, backfills: [])
    }

    package func schemaSQL(_ schema: Schema, columnOrder: ServerColumnOrder, backfills: [Backfill]) throws -> String {
        let tables = try schema.tables.map {
            RenderedSQL(sql: try tableSQLWithOldNames($0, try tableSQL($0, upgrading: true, columnOrder: columnOrder, in: schema)))
        }
        return try templates.render(
            SchemaContext(
                sequence: try sequenceSQL(), sharing: try sharingSQL(schema), tables: tables, pull: try pullSQL(schema),
                writers: try writersSQL(schema), buckets: try bucketsSQL(schema.buckets, in: schema),
                backfills: try backfillsSQL(backfills)))
    }

    /// The buckets whose file columns a migration adds, or whose table's server code it
    /// replaces (a bucket's policies are part of that code), each once, in order. The SQL is
    /// idempotent, so a bucket an earlier migration made is only made again when a later one
    /// adds a column to it or its policies render differently.
    static func buckets(addedBy migration: Migration) -> [String] {
        let columns = migration.changes.flatMap { change -> [SyncedColumn] in
            switch change {
            case .createTable(let table), .replaceTriggers(let table), .shareTable(let table): table.syncedColumns
            case .addColumn(let column, _): [column]
            case .addIndex, .replaceServerIndex, .renameColumn, .deprecateColumn, .retireColumn, .deprecateTable, .finishTableRename: []
            case .renameTable(let table): table.syncedColumns
            }
        }
        return buckets(of: columns)
    }

    /// The buckets of a table's file columns, each once, in order.
    static func buckets(of table: Table) -> [String] { buckets(of: table.syncedColumns) }

    private static func buckets(of columns: [SyncedColumn]) -> [String] {
        columns.compactMap(\.type.bucket).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    private func bucketsSQL(_ buckets: [String], in schema: Schema) throws -> [RenderedSQL] {
        try buckets.map { RenderedSQL(sql: try bucketSQL($0, in: schema)) }
    }

    func changeSQL(_ change: SchemaChange, in schema: Schema? = nil) throws -> String {
        switch change {
        case .createTable(let table): try tableSQL(table, upgrading: false, in: schema)
        case .addColumn(let column, let table): try addColumnSQL(column, to: table)
        case .addIndex(let index, let table): try indexSQL(index, on: table)
        case .replaceServerIndex(let index, let table): try indexSQL(index, on: table, replacing: true)
        case .replaceTriggers(let table): try replacedServerCodeSQL(table, in: schema)
        case .shareTable(let table): try shareTableSQL(table, in: schema)
        case .renameColumn(let column, let table): try renameColumnSQL(column, of: table)
        case .deprecateColumn(let column, let table): try deprecateColumnSQL(column, of: table)
        case .retireColumn(let retired, let table): try retireColumnSQL(retired, of: table)
        case .deprecateTable(let table): try deprecateTableSQL(table)
        case .renameTable(let table): try renameTableSQL(table, in: schema)
        case .finishTableRename(let table, let old): try finishedRenameSQL(table, from: old)
        }
    }

    /// A table's server code re-created: its triggers, and a scope's membership table, whose
    /// functions and triggers are that scope's too (membership.sql is safe over itself).
    package func replacedServerCodeSQL(_ table: Table, in schema: Schema?) throws -> String {
        let triggers = try triggersSQL(table, replacing: true, in: schema)
        return table.sharing == .scope ? triggers + "\n" + (try membershipSQL(table)) : triggers
    }

    /// What a shipped table needs to start being shared, safe over the state before: its
    /// policies and triggers re-created, and for a scope its membership table, whose rows
    /// make each existing scope's creator its owner.
    package func shareTableSQL(_ table: Table, in schema: Schema?) throws -> String {
        var parts = [try accessSQL(table), try triggersSQL(table, replacing: true, in: schema)]
        if table.sharing == .scope { parts.append(try membershipSQL(table)) }
        return parts.joined(separator: "\n")
    }

    /// A scope table's membership table (decision 0048).
    package func membershipSQL(_ table: Table) throws -> String {
        try fragment(MembershipContext(table: table.name, members: table.membershipTableName))
    }

    // MARK: Fragments (also the fixes `verify` proposes)

    package func sequenceSQL() throws -> String {
        try fragment(SequenceContext())
    }

    /// A table with everything it needs: columns (in `columnOrder`; a table a migration
    /// creates holds them in schema order), indexes, grants, policies, triggers.
    package func tableSQL(
        _ table: Table, upgrading: Bool, columnOrder: ServerColumnOrder = ServerColumnOrder(), in schema: Schema? = nil
    ) throws -> String {
        // Over an older database, schema.sql also replaces a unique index made across all owners.
        let indexes = try ([ServerIndex.pull(of: table)] + table.indexes).map { index in
            RenderedSQL(sql: try indexSQL(index, on: table, replacing: upgrading && index.isUnique))
        }
        return try fragment(
            TableContext(
                server: ServerTable(table, in: schema),
                createTable: try createTableSQL(table, upgrading: upgrading, columnOrder: columnOrder),
                indexes: indexes,
                // Over an older database, schema.sql also drops triggers the table no longer has.
                access: try accessSQL(table), triggers: try triggersSQL(table, replacing: upgrading, in: schema),
                membership: table.sharing == .scope ? try membershipSQL(table) : nil))
    }

    func createTableSQL(_ table: Table, upgrading: Bool, columnOrder: ServerColumnOrder) throws -> String {
        let definitions = { (columns: [SyncedColumn]) in
            try columns.map { CreateTableContext.ColumnDefinition(definition: try columnDefinition($0, of: table)) }
        }
        return try fragment(
            CreateTableContext(
                table: table.name, columns: try definitions(columnOrder.columns(of: table)),
                addableColumns: try columnOrder.columns(of: table).filter { $0.role != .id }.map { try addableColumn($0, of: table) },
                userColumns: try definitions(table.syncedColumns.filter { $0.role == .user }), upgrading: upgrading))
    }

    package func addColumnSQL(_ column: SyncedColumn, to table: Table) throws -> String {
        try fragment(AddColumnContext(table: table.name, definition: try columnDefinition(column, of: table)))
    }

    /// `replacing` drops an index of the same name first, so that a unique index made across
    /// all owners becomes per owner.
    package func indexSQL(_ index: Index, on table: Table, replacing: Bool = false) throws -> String {
        try fragment(IndexContext(index, on: table, replacing: replacing))
    }

    package func accessSQL(_ table: Table) throws -> String {
        try fragment(AccessContext(table: table.name, sharing: ServerSharing(table, in: nil)))
    }

    /// A Storage bucket and the policies that keep each user in their own folder (and a shared
    /// scope's files in the scope's, for its members).
    package func bucketSQL(_ bucket: String, in schema: Schema) throws -> String {
        try fragment(BucketContext(bucket: bucket, in: schema))
    }

    /// `schema` names the tables that follow a shared table or that a scope holds.
    package func triggersSQL(_ table: Table, replacing: Bool, in schema: Schema? = nil) throws -> String {
        try fragment(TriggersContext(server: ServerTable(table, in: schema), replacing: replacing))
    }

    func columnDefinition(_ column: SyncedColumn, of table: Table) throws -> String {
        try fragment(ColumnContext(column, of: table))
    }

    /// A rendered fragment without its final newline, so frames decide the spacing.
    func fragment<Context: TemplateContext>(_ context: Context) throws -> String {
        var text = try templates.render(context)
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
