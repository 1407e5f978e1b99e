import HopeSyncSchema

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
        var before: String? = nil
        var after: String? = nil

        static var fields: [TemplateField<Self>] {
            [
                .init("definition", "the rendered column.sql", \.definition),
                .init("before", "in addableColumns, SQL run before it is added: a retired column dropped unless generated", \.before),
                .init(
                    "after", "in addableColumns, SQL run after: a renamed column's rows copied, a deprecated column's default",
                    \.after),
            ]
        }
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
    var generated: String?

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("name", "the column's name", \.name),
            .init("type", "its PostgreSQL type (HopeSyncModel's postgresType)", \.type),
            .init("generated", "a retired column's generation expression: the column it copies, or its default", \.generated),
            .init("primaryKey", "the id column", \.primaryKey),
            .init("notNull", "NOT NULL (every column but the nullable ones and the id)", \.notNull),
            .init("default", "its default as an SQL expression", \.default),
            .init("isEnum", "an enum column, checked against its values", \.isEnum),
            .init("values", "an enum's values as SQL string literals", \.values),
        ]
    }
}

extension ColumnContext {
    /// One column definition's parts (see column.sql.mustache).
    init(_ column: SyncedColumn, of table: Table) {
        var values: [String] = []
        if case .enumeration(let names) = column.type, !column.isRetired { values = names.map(SQLLiteral.string) }
        self.init(
            table: table.name, name: column.name, type: column.type.postgresType, primaryKey: column.role == .id,
            notNull: !column.isNullable && column.role != .id, default: column.isRetired ? nil : Self.defaultExpression(column),
            isEnum: !values.isEmpty, values: values, generated: column.isRetired ? Self.generation(column) : nil)
    }

    /// What a retired column serves: the column it copies, or its default as a constant (a
    /// generation expression must be immutable: `now()` serves the epoch), or null.
    private static func generation(_ column: SyncedColumn) -> String {
        if let copies = column.copies { return column.retype.map { "(\($0.back))" } ?? copies }
        let constant = column.defaultValue == .now ? "'epoch'" : defaultExpression(column) ?? "null"
        return "(\(constant))::\(column.type.postgresType)"
    }

    /// A column's default on the server: the owner is whoever signs the request in, and a
    /// version starts where the server starts it.
    static func defaultExpression(_ column: SyncedColumn) -> String? {
        switch column.role {
        case .owner: return "auth.uid()"
        case .version: return column.type == .timestamp ? "now()" : "1"
        default: break
        }
        switch column.defaultValue {
        case nil: return nil
        case .text(let text): return SQLLiteral.string(text)
        case .int(let value): return String(value)
        case .double(let value): return SQLLiteral.number(value)
        case .bool(let value): return value ? "true" : "false"
        case .now: return "now()"
        case .json(let document): return SQLLiteral.string(document) + "::jsonb"
        }
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

extension IndexContext {
    init(_ index: Index, on table: Table, replacing: Bool) {
        self.init(
            table: table.name, name: index.name, columns: ServerIndex.columns(of: index), unique: index.isUnique, replacing: replacing)
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

/// The indexes as the server holds them.
package enum ServerIndex {
    /// The server holds every owner's rows, a device one owner's: a unique index is unique per
    /// owner on the server (`user_id` first), as each device enforces it, so one user's write
    /// never fails on, and so never reveals, another user's value.
    package static func columns(of index: Index) -> [String] {
        guard index.isUnique, index.columns.first != ReservedColumn.owner else { return index.columns }
        return [ReservedColumn.owner] + index.columns
    }

    /// The index every pull uses: an owner's rows in server_seq order.
    package static func pull(of table: Table) -> Index {
        Index(name: "\(table.name)_user_id_server_seq_idx", columns: [ReservedColumn.owner, ReservedColumn.serverSeq])
    }
}
