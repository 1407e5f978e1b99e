import HopeSyncSchema

/// `supabase/rename_column.sql.mustache`: the expand step of a rename after its column is added.
struct RenameColumnContext: TemplateContext {
    static let template = "supabase/rename_column.sql.mustache"
    static let summary = "the expand step of a rename (decision 0052): the rows copied to the new name, NOT NULL, defaults"

    var table: String
    var column: String
    var was: String
    var from: String
    var columnMerge: Bool
    var notNull: Bool
    var dropsOldDefault: Bool

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("column", "the column's new name (added beside the old, nullable)", \.column),
            .init("was", "its old name", \.was),
            .init("from", "the new name's value from the old one: the old name, or a retype's `to` conversion", \.from),
            .init("columnMerge", "the table merges column by column: the old name's stamp is copied too", \.columnMerge),
            .init("notNull", "the column is NOT NULL: set once the rows are copied", \.notNull),
            .init(
                "dropsOldDefault", "a nullable column while both names are written: the old name loses its default",
                \.dropsOldDefault),
        ]
    }
}

/// `supabase/retire_column.sql.mustache`: a retired column dropped unless generated already.
struct RetireColumnContext: TemplateContext {
    static let template = "supabase/retire_column.sql.mustache"
    static let summary = "a retired column (decision 0052) dropped unless it is generated already, before it is added generated"

    var table: String
    var column: String
    var copies: String?
    var restoredDefault: String?

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("column", "the retired column's name", \.column),
            .init("copies", "the column whose values it serves (a finished rename); absent: it serves its default", \.copies),
            .init("restoredDefault", "the default `copies` has again now that the rename is finished", \.restoredDefault),
        ]
    }
}

/// `supabase/deprecate_column.sql.mustache`.
struct DeprecateColumnContext: TemplateContext {
    static let template = "supabase/deprecate_column.sql.mustache"
    static let summary =
        "a deprecated column on the server (decision 0052): its default, for the rows new builds insert; or a deprecated table"

    var table: String
    var column: String?
    var `default`: String?

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("column", "the deprecated column; absent: the table is deprecated", \.column),
            .init("default", "its default as an SQL expression", \.default),
        ]
    }
}

enum RenamedColumnsPartial: TriggersPartial {
    static let template = "supabase/renamed_columns.sql.mustache"
    static let summary = "a renamed column's two names kept equal, first in both branches of the write trigger (decision 0052)"
}

/// A column with two names on the server, while a rename is not finished.
struct RenamedColumn: TemplateObject {
    var name: String
    var was: String
    var toNew: String = ""
    var toOld: String = ""

    static var fields: [TemplateField<Self>] {
        [
            .init("name", "the column's new name", \.name), .init("was", "its old name", \.was),
            .init("toNew", "the statement setting the new name from the old (a retype's `to` in a block of its own)", \.toNew),
            .init("toOld", "the statement setting the old name from the new (a retype's `back`)", \.toOld),
        ]
    }
}

extension RenamedColumn {
    /// The pair of `column`, and the statements copying each name to the other: a retype's
    /// conversion reads a variable named as the column it converts, in a block of its own, so
    /// the expression schema.yaml gives works as written.
    init(_ column: Column) {
        let was = column.was ?? ""
        self.init(name: column.name, was: was)
        guard let retype = column.retype else {
            toNew = "new.\(column.name) := new.\(was);"
            toOld = "new.\(was) := new.\(column.name);"
            return
        }
        toNew = "declare \(was) \(retype.from.postgresType) := new.\(was); begin new.\(column.name) := (\(retype.to)); end;"
        toOld = "declare \(column.name) \(column.type.postgresType) := new.\(column.name); begin new.\(was) := (\(retype.back)); end;"
    }
}

extension SupabaseRenderer {
    /// The expand step of a rename: the new name added nullable, then filled.
    func renameColumnSQL(_ column: SyncedColumn, of table: Table) throws -> String {
        var added = column
        added.isNullable = true
        return try addColumnSQL(added, to: table) + "\n" + (try renamedRowsSQL(column, of: table))
    }

    /// What follows the new name's `add column`: the copy, NOT NULL, the old name's default
    /// (`was`: the old name of a finished rename, whose old column is retired).
    func renamedRowsSQL(_ column: SyncedColumn, of table: Table, was: String? = nil) throws -> String {
        let old = was ?? column.twin ?? ""
        return try fragment(
            RenameColumnContext(
                table: table.name, column: column.name, was: old, from: column.retype.map { "(\($0.to))" } ?? old,
                columnMerge: table.mergesColumns,
                notNull: !column.isNullable, dropsOldDefault: was == nil && column.isNullable))
    }

    /// A retired column: dropped unless generated, then added generated.
    func retireColumnSQL(_ retired: RetiredColumn, of table: Table) throws -> String {
        guard let column = table.serverColumns.first(where: { $0.name == retired.column.name && $0.isRetired }) else { return "" }
        return try retiredDropSQL(retired, of: table) + "\n" + (try addColumnSQL(column, to: table))
    }

    /// What precedes a retired column's `add column`.
    func retiredDropSQL(_ retired: RetiredColumn, of table: Table) throws -> String {
        let restored = retired.copies.flatMap { table.column(named: $0) }.flatMap {
            ColumnContext.defaultExpression(SyncedColumn(user: $0))
        }
        return try fragment(
            RetireColumnContext(table: table.name, column: retired.column.name, copies: retired.copies, restoredDefault: restored))
    }

    /// The server keeps a deprecated table as it is; the migration says so.
    func deprecateTableSQL(_ table: Table) throws -> String {
        try fragment(DeprecateColumnContext(table: table.name, column: nil, default: nil))
    }

    func deprecateColumnSQL(_ column: SyncedColumn, of table: Table) throws -> String {
        try fragment(DeprecateColumnContext(table: table.name, column: column.name, default: ColumnContext.defaultExpression(column)))
    }

    /// What schema.sql runs around a column's `add column if not exists` over an older table.
    func addableColumn(_ column: SyncedColumn, of table: Table) throws -> CreateTableContext.ColumnDefinition {
        if column.isRetired, let retired = table.retired.first(where: { $0.column.name == column.name }) {
            return .init(definition: try columnDefinition(column, of: table), before: try retiredDropSQL(retired, of: table))
        }
        if column.twin != nil, table.column(named: column.name)?.was != nil {
            var added = column
            added.isNullable = true
            return .init(definition: try columnDefinition(added, of: table), after: try renamedRowsSQL(column, of: table))
        }
        if let retired = table.retired.first(where: { $0.copies == column.name }) {
            // A finished rename over a table that never had the new name: filled as the rename did.
            var added = column
            added.isNullable = true
            var filled = column
            filled.retype = retired.retype
            return .init(
                definition: try columnDefinition(added, of: table), after: try renamedRowsSQL(filled, of: table, was: retired.column.name))
        }
        if table.column(named: column.name)?.isDeprecated == true, column.defaultValue != nil {
            return .init(definition: try columnDefinition(column, of: table), after: try deprecateColumnSQL(column, of: table))
        }
        return .init(definition: try columnDefinition(column, of: table))
    }
}
