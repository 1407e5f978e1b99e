/// What a table's server code depends on: its conflict rule, ordering and rules. Both
/// `supabase/triggers.sql.mustache` and `supabase/table.sql.mustache` receive it.
struct ServerTable: TemplateObject {
    var table: String
    var lww: Bool
    var versionTimestamp: Bool
    var versionInteger: Bool
    var exactOrdering: Bool
    var locksOwner: Bool
    var openRow: OpenRow?
    var columnMerge: Bool
    var rowMerge: Bool
    var stamped: [NamedColumn]
    var written: [NamedColumn]
    var jsonColumns: [NamedColumn]

    struct OpenRow: TemplateObject {
        var start: String
        var end: String

        static var fields: [TemplateField<Self>] {
            [
                .init("start", "the column holding a row's start", \.start),
                .init("end", "the column holding its end (NULL while open)", \.end),
            ]
        }
    }

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("lww", "last writer wins on (updated_ms, device_id)", \.lww),
            .init("versionTimestamp", "a version table whose updated_at moddatetime moves", \.versionTimestamp),
            .init("versionInteger", "a version table whose integer version the trigger bumps", \.versionInteger),
            .init("exactOrdering", "exact_ordering: true", \.exactOrdering),
            .init("locksOwner", "takes the owner's lock (exact ordering, or the open-row rule)", \.locksOwner),
            .init("openRow", "the one-open-row-per-owner rule, when the table has it", \.openRow),
            .init("columnMerge", "lww, merged column by column (`column_stamps`)", \.columnMerge),
            .init("rowMerge", "lww, the whole row at once (`merge: row`)", \.rowMerge),
            .init("stamped", "the columns with a stamp each under column merge: the user's, then deleted_ms", \.stamped),
            .init("written", "the user's stamped columns (without deleted_ms)", \.written),
            .init("jsonColumns", "the json columns, whose nesting depth the trigger limits", \.jsonColumns),
        ]
    }
}

struct NamedColumn: TemplateObject {
    var name: String

    static var fields: [TemplateField<Self>] { [.init("name", "the column's name", \.name)] }
}

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

    static var fields: [TemplateField<Self>] {
        fields(of: \.server) + [
            .init("createTable", "the rendered create_table.sql", \.createTable),
            .init("indexes", "each index, rendered by index.sql (the pull index first)", \.indexes),
            .init("access", "the rendered access.sql", \.access),
            .init("triggers", "the rendered triggers.sql", \.triggers),
        ]
    }
}

/// `supabase/create_table.sql.mustache`.
struct CreateTableContext: TemplateContext {
    static let template = "supabase/create_table.sql.mustache"
    static let summary = "`create table` with every synced column"

    var table: String
    var columns: [ColumnDefinition]
    var addableColumns: [ColumnDefinition]
    var userColumns: [ColumnDefinition]
    var upgrading: Bool

    struct ColumnDefinition: TemplateObject {
        var definition: String

        static var fields: [TemplateField<Self>] { [.init("definition", "the rendered column.sql", \.definition)] }
    }

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("columns", "every synced column, in the order the table's migrations made them", \.columns),
            .init(
                "addableColumns",
                "every column but the key, in server order: what schema.sql adds to an older table that lacks it",
                \.addableColumns),
            // Templates written before addableColumns added these; kept so they still render.
            .init("userColumns", "the user's columns, in schema order (older templates added these)", \.userColumns),
            .init("upgrading", "in schema.sql, which also brings an older table up to date", \.upgrading),
        ]
    }
}

/// `supabase/column.sql.mustache`.
struct ColumnContext: TemplateContext {
    static let template = "supabase/column.sql.mustache"
    static let summary = "one column definition, shared by create table and add column"

    var table: String
    var name: String
    var type: String
    var primaryKey: Bool
    var notNull: Bool
    var `default`: String?
    var isEnum: Bool
    var values: [String]

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("name", "the column's name", \.name),
            .init("type", "its PostgreSQL type (SyncModel's postgresType)", \.type),
            .init("primaryKey", "the id column", \.primaryKey),
            .init("notNull", "NOT NULL (every column but the nullable ones and the id)", \.notNull),
            .init("default", "its default as an SQL expression", \.default),
            .init("isEnum", "an enum column, checked against its values", \.isEnum),
            .init("values", "an enum's values as SQL string literals", \.values),
        ]
    }
}

/// `supabase/index.sql.mustache`.
struct IndexContext: TemplateContext {
    static let template = "supabase/index.sql.mustache"
    static let summary = "one index"

    var table: String
    var name: String
    var columns: [String]
    var unique: Bool
    var replacing: Bool

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("name", "the index's name", \.name),
            .init("columns", "its columns on the server (a unique index starts with user_id)", \.columns),
            .init("unique", "a unique index", \.unique),
            .init("replacing", "drop an index of this name first (one unique across all owners)", \.replacing),
        ]
    }
}

/// `supabase/add_column.sql.mustache`.
struct AddColumnContext: TemplateContext {
    static let template = "supabase/add_column.sql.mustache"
    static let summary = "a new column on an existing table"

    var table: String
    var definition: String

    static var fields: [TemplateField<Self>] {
        [.init("table", "the table's name", \.table), .init("definition", "the rendered column.sql", \.definition)]
    }
}

/// `supabase/access.sql.mustache`.
struct AccessContext: TemplateContext {
    static let template = "supabase/access.sql.mustache"
    static let summary = "grants, row-level security and policies of a table (`verify` expects what it renders)"

    var table: String

    static var fields: [TemplateField<Self>] { [.init("table", "the table's name", \.table)] }
}

/// `supabase/sequence.sql.mustache`.
struct SequenceContext: TemplateContext {
    static let template = "supabase/sequence.sql.mustache"
    static let summary = "what every table shares: the server_seq sequence and the owner-lock function"

    static var fields: [TemplateField<Self>] { [] }
}

/// `supabase/migration.sql.mustache`.
struct SupabaseMigrationContext: TemplateContext {
    static let template = "supabase/migration.sql.mustache"
    static let summary = "one server migration, `Generated/supabase/migrations/<stamp>_NNNN_name.sql`"

    var number: String
    var name: String
    var createsSequence: Bool
    var sequence: String
    var steps: [RenderedSQL]

    static var fields: [TemplateField<Self>] {
        [
            .init("number", "the migration's number", \.number),
            .init("name", "its name", \.name),
            .init("createsSequence", "it creates a table, so it also makes what tables share", \.createsSequence),
            .init("sequence", "the rendered sequence.sql", \.sequence),
            .init("steps", "each change, rendered by its fragment", \.steps),
        ]
    }
}

/// `supabase/schema.sql.mustache`.
struct SchemaContext: TemplateContext {
    static let template = "supabase/schema.sql.mustache"
    static let summary = "`Generated/supabase/schema.sql`, the whole server schema, idempotent"

    var sequence: String
    var tables: [RenderedSQL]

    static var fields: [TemplateField<Self>] {
        [.init("sequence", "the rendered sequence.sql", \.sequence), .init("tables", "each table, rendered by table.sql", \.tables)]
    }
}
