import Foundation
import SyncGenerator
import SyncRuntime
import SyncSchema

/// Tables the server benchmarks declare for the generator, rendered as a project's server SQL
/// is, and seen by the runtime as the generated code would describe them.
enum ServerTables {
    /// The server SQL the templates in `templates` (the built-in ones when nil) render for `tables`.
    static func sql(_ tables: [Table], templates: URL? = nil) throws -> String {
        try SupabaseRenderer(templates: TemplateSet(directory: templates)).schemaSQL(
            Schema(tables: tables), columnOrder: ServerColumnOrder())
    }

    /// A copy of `table` with no trigger, policy or row-level security: the plain upsert a
    /// generated table is held against.
    static func plainCopySQL(of table: String, named name: String) -> String {
        """
        create table public.\(name) (like public.\(table) including defaults including constraints including indexes);
        grant select, insert, update on public.\(name) to authenticated;
        """
    }
}

extension TableSchema {
    /// The runtime's view of a table a benchmark declares for the generator (its implicit
    /// columns included), under another name for a plain copy of it.
    init(_ table: Table, named name: String? = nil) {
        self.init(
            name: name ?? table.name,
            columns: table.syncedColumns.map { ColumnSchema($0.name, $0.type, nullable: $0.isNullable, role: $0.role) },
            conflict: table.conflict, ordering: table.pullOrdering)
    }
}
