import HopeSyncSchema

/// `supabase/triggers.sql.mustache`.
struct TriggersContext: TemplateContext {
    static let template = "supabase/triggers.sql.mustache"
    static let summary = "a table's server functions and triggers (also the fix `verify` proposes for them)"

    var server: ServerTable
    var replacing: Bool

    static var fields: [TemplateField<Self>] {
        fields(of: \.server) + [.init("replacing", "re-created over an older version: drop what the table no longer has", \.replacing)]
    }
}

/// `supabase/table.sql.mustache`.
struct TableContext: TemplateContext {
    static let template = "supabase/table.sql.mustache"
    static let summary = "a table with everything it needs, from its other fragments"

    var server: ServerTable
    var createTable: String
    var indexes: [RenderedSQL]
    var access: String
    var triggers: String
    var membership: String?

    static var fields: [TemplateField<Self>] {
        fields(of: \.server) + [
            .init("createTable", "the rendered create_table.sql", \.createTable),
            .init("indexes", "each index, rendered by index.sql (the pull index first)", \.indexes),
            .init("access", "the rendered access.sql", \.access),
            .init("triggers", "the rendered triggers.sql", \.triggers),
            .init("membership", "for a scope table, its membership table, rendered by membership.sql", \.membership),
        ]
    }
}

/// `supabase/access.sql.mustache`.
struct AccessContext: TemplateContext {
    static let template = "supabase/access.sql.mustache"
    static let summary = "grants, row-level security and policies of a table (`verify` expects what it renders)"

    var table: String
    var sharing: ServerSharing?

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("sharing", "how the rows are shared, for a shared table (as triggers.sql receives it)", \.sharing),
        ]
    }
}

/// `supabase/sequence.sql.mustache`.
struct SequenceContext: TemplateContext {
    static let template = "supabase/sequence.sql.mustache"
    static let summary = "what every table shares: the server_seq sequence, the owner-lock functions, the owners' marks and the pokes"

    static var fields: [TemplateField<Self>] { [] }
}

/// `supabase/writers.sql.mustache`.
struct WritersContext: TemplateContext {
    static let template = "supabase/writers.sql.mustache"
    static let summary = "which builds may write: the schema version a request states, the devices' daily hello, the writer floor"

    var oldestWriter: String?
    var tables: [NamedTable]

    static var fields: [TemplateField<Self>] {
        [
            .init("oldestWriter", "schema.yaml's oldest_writer, the oldest schema version allowed to write, when set", \.oldestWriter),
            .init("tables", "every synced table, in schema order (each gets the check)", \.tables),
        ]
    }
}

/// `supabase/pull.sql.mustache`.
struct PullContext: TemplateContext {
    static let template = "supabase/pull.sql.mustache"
    static let summary = "the pull function: every table's next page in one request (shared by the tables)"

    var function: String
    var tables: [NamedTable]

    static var fields: [TemplateField<Self>] {
        [
            .init("function", "the function's name (the generated table lists name it for clients)", \.function),
            .init("tables", "every synced table, in schema order", \.tables),
        ]
    }
}

/// A table a template lists.
struct NamedTable: TemplateObject {
    var name: String

    static var fields: [TemplateField<Self>] { [.init("name", "the table's name", \.name)] }
}

/// `supabase/migration.sql.mustache`.
struct SupabaseMigrationContext: TemplateContext {
    static let template = "supabase/migration.sql.mustache"
    static let summary = "one server migration, `Generated/supabase/migrations/<stamp>_NNNN_name.sql`"

    var number: String
    var name: String
    var createsSequence: Bool
    var sequence: String
    var sharing: String?
    var steps: [RenderedSQL]
    var pull: String
    var writers: String
    var buckets: [RenderedSQL]

    static var fields: [TemplateField<Self>] {
        [
            .init("number", "the migration's number", \.number),
            .init("name", "its name", \.name),
            .init(
                "createsSequence",
                "it creates a table or re-creates triggers, or what tables share renders differently: it (re)makes what they share",
                \.createsSequence),
            .init("sequence", "the rendered sequence.sql", \.sequence),
            .init("sharing", "for a schema with a scope table, the rendered sharing.sql (made with the sequence)", \.sharing),
            .init("steps", "each change, rendered by its fragment", \.steps),
            .init("pull", "the rendered pull.sql (shared_pull.sql for a schema with a scope table), for the migration's tables", \.pull),
            .init("writers", "the rendered writers.sql, for the migration's tables", \.writers),
            .init("buckets", "each Storage bucket a file column it adds is the first to use, rendered by bucket.sql", \.buckets),
        ]
    }
}

/// `supabase/schema.sql.mustache`.
struct SchemaContext: TemplateContext {
    static let template = "supabase/schema.sql.mustache"
    static let summary = "`Generated/supabase/schema.sql`, the whole server schema, idempotent"

    var sequence: String
    var sharing: String?
    var tables: [RenderedSQL]
    var pull: String
    var writers: String
    var buckets: [RenderedSQL]
    var backfills: String?

    static var fields: [TemplateField<Self>] {
        [
            .init("sequence", "the rendered sequence.sql", \.sequence),
            .init("sharing", "for a schema with a scope table, the rendered sharing.sql", \.sharing),
            .init("tables", "each table, rendered by table.sql", \.tables),
            .init("pull", "the rendered pull.sql (shared_pull.sql for a schema with a scope table)", \.pull),
            .init("writers", "the rendered writers.sql", \.writers),
            .init("buckets", "each Storage bucket of the file columns, rendered by bucket.sql", \.buckets),
            .init("backfills", "for a schema with a backfill, the rendered backfills.sql: every backfill, last", \.backfills),
        ]
    }
}

/// `supabase/bucket.sql.mustache`.
struct BucketContext: TemplateContext {
    static let template = "supabase/bucket.sql.mustache"
    static let summary = "a Storage bucket of file columns and its `storage.objects` policies (`verify` expects what it renders)"

    var bucket: String
    var literal: String
    var insertPolicy: String
    var selectPolicy: String
    var scopeTables: String?

    static var fields: [TemplateField<Self>] {
        [
            .init("bucket", "the bucket's name (its id), as schema.yaml gives it", \.bucket),
            .init("literal", "the name as an SQL string literal", \.literal),
            .init("insertPolicy", "the quoted name of the policy that lets the owner upload into their folder", \.insertPolicy),
            .init("selectPolicy", "the quoted name of the policy that lets the owner download from their folder", \.selectPolicy),
            .init(
                "scopeTables",
                "when a shared table has a file column in the bucket, its scope tables as SQL literals (`'task_lists'`): their scopes' folders are the members'",
                \.scopeTables),
        ]
    }
}

extension BucketContext {
    /// Bucket names may hold '-', so the policies' names are quoted identifiers. A bucket
    /// holding a shared table's files also opens each scope's folder to its members.
    init(bucket: String, in schema: Schema) {
        let scopeTables = schema.tables.filter { table in table.columns.contains { $0.type.bucket == bucket } }
            .compactMap(\.scopeTable).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        self.init(
            bucket: bucket, literal: SQLLiteral.string(bucket), insertPolicy: "\"\(bucket)_insert_own\"",
            selectPolicy: "\"\(bucket)_select_own\"",
            scopeTables: scopeTables.isEmpty ? nil : scopeTables.map(SQLLiteral.string).joined(separator: ", "))
    }
}

/// A rendered piece of SQL placed by a frame template (`{{#steps}}{{sql}}{{/steps}}`).
struct RenderedSQL: TemplateObject {
    var sql: String

    static var fields: [TemplateField<Self>] { [.init("sql", "the rendered SQL, without its final newline", \.sql)] }
}
