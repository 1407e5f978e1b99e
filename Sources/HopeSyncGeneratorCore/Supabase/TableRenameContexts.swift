import HopeSyncSchema

/// `supabase/rename_table.sql.mustache`: a renamed table takes its name, before its own SQL.
struct RenameTableContext: TemplateContext {
    static let template = "supabase/rename_table.sql.mustache"
    static let summary =
        "a renamed table (decision 0054) before its own SQL: the table under an old name renamed, with what is named after it; the old names' views dropped"

    var table: String
    var oldNames: [OldTableName]

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("oldNames", "the names it had, oldest first", \.oldNames),
        ]
    }
}

/// A name a table had, and its indexes named after it then.
struct OldTableName: TemplateObject {
    var name: String
    var indexes: [RenamedIndex]

    static var fields: [TemplateField<Self>] {
        [
            .init("name", "the old name", \.name),
            .init("indexes", "the indexes named after it (no 'name:' in schema.yaml), which follow the table's name", \.indexes),
        ]
    }
}

struct RenamedIndex: TemplateObject {
    var from: String
    var to: String

    static var fields: [TemplateField<Self>] { [.init("from", "the index's old name", \.from), .init("to", "its name now", \.to)] }
}

/// `supabase/old_names.sql.mustache`: the views of a renamed table's old names.
struct OldNamesContext: TemplateContext {
    static let template = "supabase/old_names.sql.mustache"
    static let summary = "the old names of a renamed table (decision 0054), views old builds read and write through, after its SQL"

    var table: String
    var oldNames: [NamedTable]
    var poked: String?
    var finished: String?

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table),
            .init("oldNames", "the names it had, oldest first", \.oldNames),
            .init("poked", "the old name of a rename not finished, under which its writes are poked too; absent: none is", \.poked),
            .init("finished", "the old name whose rename this migration finishes (the contract step; no old names then)", \.finished),
        ]
    }
}

extension SupabaseRenderer {
    /// The expand step of a table rename, as a migration makes it: the table renamed, its server
    /// code made again under the new name, the old names' views.
    func renameTableSQL(_ table: Table, in schema: Schema?) throws -> String {
        [
            try renamedTableSQL(table), try accessSQL(table), try replacedServerCodeSQL(table, in: schema), try oldNamesSQL(table),
        ].joined(separator: "\n")
    }

    /// Before the table's own SQL.
    package func renamedTableSQL(_ table: Table) throws -> String {
        let oldNames = table.oldNames.map { old in
            OldTableName(
                name: old,
                indexes: table.indexes.compactMap { index in
                    index.name(whileNamed: old, table: table.name).map { RenamedIndex(from: $0, to: index.name) }
                })
        }
        return try fragment(RenameTableContext(table: table.name, oldNames: oldNames))
    }

    /// After the table's own SQL.
    package func oldNamesSQL(_ table: Table) throws -> String {
        try fragment(
            OldNamesContext(table: table.name, oldNames: table.oldNames.map { NamedTable(name: $0) }, poked: table.was, finished: nil))
    }

    /// The contract step: the old name's pokes stop; its view stays for the pulls of the builds
    /// below the floor (which, set by then, refuses their writes).
    func finishedRenameSQL(_ table: Table, from old: String) throws -> String {
        try fragment(OldNamesContext(table: table.name, oldNames: [], poked: nil, finished: old))
    }

    /// A table as schema.sql makes it, with its old names around it when it has any.
    func tableSQLWithOldNames(_ table: Table, _ sql: String) throws -> String {
        table.oldNames.isEmpty ? sql : [try renamedTableSQL(table), sql, try oldNamesSQL(table)].joined(separator: "\n")
    }

    /// The pull function's tables: each table, then its old names, which old builds still pull
    /// (a view of the same rows).
    static func pulledNames(_ schema: Schema) -> [NamedTable] {
        schema.tables.flatMap { [NamedTable(name: $0.name)] + $0.oldNames.map { NamedTable(name: $0) } }
    }

    /// A migration's steps with the old names' views dropped before and made again after the
    /// steps that change a renamed table's columns (a view pins the columns it selects).
    static func viewsAround(_ steps: [RenderedSQL], of migration: Migration, renderer: SupabaseRenderer) throws -> [RenderedSQL] {
        let tables = migration.changes.compactMap { change -> Table? in
            switch change {
            case .addColumn(_, let table), .renameColumn(_, let table), .retireColumn(_, let table):
                table.oldNames.isEmpty ? nil : table
            default: nil
            }
        }
        var names: [String] = []
        for table in tables where !names.contains(table.name) { names.append(table.name) }
        guard !names.isEmpty else { return steps }
        let touched = names.compactMap { migration.schema.table(named: $0) }
        let before = try touched.map { RenderedSQL(sql: try renderer.renamedTableSQL($0)) }
        let after = try touched.map { RenderedSQL(sql: try renderer.oldNamesSQL($0)) }
        return before + steps + after
    }
}
