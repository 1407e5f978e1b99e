import Foundation
import HopeSync
import HopeSyncGenerator
import HopeSyncSchema

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

    /// `table`'s plain copy with the generated table's row-level security and own-rows
    /// policies, and (`returningTrigger`) a row trigger that only returns its row: what any
    /// design pays that keeps a user to their rows and checks a write in PL/pgSQL.
    static func floorCopySQL(of table: String, named name: String, returningTrigger: Bool) -> String {
        let own = "user_id = (select auth.uid())"
        var sql =
            plainCopySQL(of: table, named: name) + """

                alter table public.\(name) enable row level security;
                create policy \(name)_select_own on public.\(name) for select to authenticated using (\(own));
                create policy \(name)_insert_own on public.\(name) for insert to authenticated with check (\(own));
                create policy \(name)_update_own on public.\(name) for update to authenticated using (\(own)) with check (\(own));
                """
        if returningTrigger {
            sql += """

                create function public.\(name)_return_row() returns trigger language plpgsql set search_path = '' as $$
                begin
                  return new;
                end
                $$;
                create trigger \(name)_before_write before insert or update on public.\(name)
                  for each row execute function public.\(name)_return_row();
                """
        }
        return sql
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
