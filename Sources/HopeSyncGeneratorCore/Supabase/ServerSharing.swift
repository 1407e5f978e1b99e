import HopeSyncSchema

/// How a shared table's rows are shared, as its server code needs it (decision 0048): the
/// `sharing` section of the table's templates, absent for a table whose rows are their owner's
/// alone (whose SQL then renders as before sharing existed).
struct ServerSharing: TemplateObject {
    var scopeTable: String
    var members: String
    var column: String
    var isScope: Bool
    var follows: Follows?
    var followers: [Follower]
    var scoped: [ScopedTable]

    var hasFollowers: Bool { !followers.isEmpty }

    /// The row whose scope a following table's row takes.
    struct Follows: TemplateObject {
        var parent: String
        var through: String

        static var fields: [TemplateField<Self>] {
            [
                .init("parent", "the table whose row's scope it takes", \.parent),
                .init("through", "the column referencing that row", \.through),
            ]
        }
    }

    /// A table whose rows follow this table's (their scope column kept equal to its row's).
    struct Follower: TemplateObject {
        var name: String
        var through: String
        var rowMerge: Bool
        var columnMerge: Bool

        static var fields: [TemplateField<Self>] {
            [
                .init("name", "the following table", \.name),
                .init("through", "its column referencing this table's row", \.through),
                .init("rowMerge", "last writer wins, the whole row (the server's move is a newer pair)", \.rowMerge),
                .init(
                    "columnMerge", "last writer wins column by column (the server's move is a newer stamp of the scope column)",
                    \.columnMerge),
            ]
        }
    }

    /// A table whose rows a scope holds, for what deleting the scope soft-deletes.
    struct ScopedTable: TemplateObject {
        var name: String
        var column: String
        var rowMerge: Bool
        var columnMerge: Bool

        static var fields: [TemplateField<Self>] {
            [
                .init("name", "the table", \.name),
                .init("column", "its scope column", \.column),
                .init("rowMerge", "last writer wins, the whole row (a delete by the server is a newer pair)", \.rowMerge),
                .init(
                    "columnMerge", "last writer wins column by column (a delete by the server is a newer deleted_ms stamp)", \.columnMerge),
            ]
        }
    }

    static var fields: [TemplateField<Self>] {
        [
            .init("scopeTable", "the scope table whose members share the rows", \.scopeTable),
            .init("members", "that scope table's membership table (`<scope table>_members`)", \.members),
            .init("column", "the column naming a row's scope (`id` for a scope table's own rows)", \.column),
            .init("isScope", "each row is a scope (`scope: true`)", \.isScope),
            .init("follows", "for a table that follows another's scope: that table and the column referencing it", \.follows),
            .init("followers", "the tables that follow this table's rows, in schema order", \.followers),
            .init("hasFollowers", "some table follows this table's rows", \.hasFollowers),
            .init("scoped", "for a scope table: every other table whose rows its scopes hold, in schema order", \.scoped),
        ]
    }
}

extension ServerSharing {
    /// Nil for an unshared table. Without `schema`, the lists that other tables make
    /// (`followers`, `scoped`) are empty: enough for the table's policies.
    init?(_ table: Table, in schema: Schema?) {
        guard let sharing = table.sharing, let scopeTable = table.scopeTable else { return nil }
        let others = schema?.tables.filter { $0.name != table.name } ?? []
        var follows: Follows?
        if case .follows(let through, _, _) = sharing, let parent = table.column(named: through)?.references {
            follows = Follows(parent: parent, through: through)
        }
        self.init(
            scopeTable: scopeTable, members: MembershipTable.name(of: scopeTable), column: sharing.scopeColumn, isScope: sharing == .scope,
            follows: follows,
            followers: others.compactMap { other in
                guard case .follows(let through, _, _)? = other.sharing, other.column(named: through)?.references == table.name else {
                    return nil
                }
                return Follower(
                    name: other.name, through: through, rowMerge: other.mergesWholeRows, columnMerge: other.mergesColumns)
            },
            scoped: sharing == .scope
                ? others.filter { $0.scopeTable == table.name }.map { other in
                    ScopedTable(
                        name: other.name, column: other.sharing?.scopeColumn ?? "",
                        rowMerge: other.mergesWholeRows, columnMerge: other.mergesColumns)
                } : [])
    }
}

/// `supabase/sharing.sql.mustache`.
struct SharingContext: TemplateContext {
    static let template = "supabase/sharing.sql.mustache"
    static let summary =
        "what every shared table uses, rendered only for a schema with a scope table: the access table, the exits, the scope lock's wait, the members' marks"

    static var fields: [TemplateField<Self>] { [] }
}

/// `supabase/membership.sql.mustache`.
struct MembershipContext: TemplateContext {
    static let template = "supabase/membership.sql.mustache"
    static let summary = "a scope table's membership table, its policies and rules, and its creators made owners of existing scopes"

    var table: String
    var members: String

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the scope table", \.table),
            .init("members", "its membership table (`<scope table>_members`)", \.members),
        ]
    }
}

/// `supabase/shared_pull.sql.mustache`.
struct SharedPullContext: TemplateContext {
    static let template = "supabase/shared_pull.sql.mustache"
    static let summary = "the pull function of a schema with a scope table, in place of pull.sql: both request shapes, every stream"

    var function: String
    var tables: [PullTable]
    var scopes: [PullScope]

    struct PullTable: TemplateObject {
        var name: String
        var shared: Bool
        var isScope: Bool
        var column: String

        static var fields: [TemplateField<Self>] {
            [
                .init("name", "the table's name", \.name),
                .init("shared", "its rows are in scopes' streams", \.shared),
                .init("isScope", "each row is a scope", \.isScope),
                .init("column", "its scope column (empty when unshared)", \.column),
            ]
        }
    }

    struct PullScope: TemplateObject {
        var table: String
        var members: String
        var tables: [ScopedColumn]

        static var fields: [TemplateField<Self>] {
            [
                .init("table", "the scope table", \.table),
                .init("members", "its membership table", \.members),
                .init("tables", "every table its scopes hold, itself first, then in schema order", \.tables),
            ]
        }
    }

    struct ScopedColumn: TemplateObject {
        var name: String
        var column: String

        static var fields: [TemplateField<Self>] {
            [.init("name", "the table's name", \.name), .init("column", "its scope column", \.column)]
        }
    }

    static var fields: [TemplateField<Self>] {
        [
            .init("function", "the function's name (the generated table lists name it for clients)", \.function),
            .init("tables", "every synced table, in schema order", \.tables),
            .init("scopes", "each scope table, in schema order", \.scopes),
        ]
    }
}

extension SharedPullContext {
    init(function: String, schema: Schema) {
        self.init(
            function: function,
            tables: schema.tables.map {
                PullTable(name: $0.name, shared: $0.sharing != nil, isScope: $0.sharing == .scope, column: $0.sharing?.scopeColumn ?? "")
            },
            scopes: schema.scopeTables.map { scope in
                PullScope(
                    table: scope.name, members: scope.membershipTableName,
                    tables: ([scope] + schema.tables.filter { $0.name != scope.name && $0.scopeTable == scope.name }).map {
                        ScopedColumn(name: $0.name, column: $0.sharing?.scopeColumn ?? "")
                    })
            })
    }
}

enum LockStreamPartial: TriggersPartial {
    static let template = "supabase/lock_stream.sql.mustache"
    static let summary = "a shared table's stream lock (scope's or owner's, both on a move), taken where lock_owner.sql is"
}

enum SharingTriggersPartial: TriggersPartial {
    static let template = "supabase/sharing_triggers.sql.mustache"
    static let summary = "a shared table's marks fan-out and exits; for a scope table, its creator's ownership and its deletion"
}
