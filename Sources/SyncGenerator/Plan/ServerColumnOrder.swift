import SyncSchema

/// The order of each table's columns on the server, a fact of its migration history: the
/// columns the migration that created the table made, then each column a later migration added
/// (`add column` puts it last), in migration order. schema.sql creates its tables in this order
/// and adds the later columns to an older table, so a paste ends where the migrations end.
///
/// The created columns keep the order the schema gives them now: the snapshot records a table's
/// creation by name only, so a shipped column moved in schema.yaml moves here too.
public struct ServerColumnOrder: Equatable, Sendable {
    /// Per table, the names of the columns added after its creating migration, oldest first.
    private var added: [String: [String]] = [:]

    /// From the changes of every migration, oldest first; none for a schema no migration made
    /// yet, whose tables each hold their columns in schema order.
    public init(_ changes: [SchemaChange] = []) {
        for case .addColumn(let column, let table) in changes {
            added[table.name, default: []].append(column.name)
        }
    }

    /// From the snapshot's record of every migration, read back against `schema`.
    public init(_ migrations: [Snapshot.Entry], in schema: Schema) {
        self.init(migrations.flatMap { $0.schemaChanges(in: schema) })
    }

    /// The table's columns as the server holds them.
    public func columns(of table: Table) -> [SyncedColumn] {
        let later = added[table.name] ?? []
        return table.syncedColumns.filter { !later.contains($0.name) } + self.added(to: table)
    }

    /// The columns later migrations added to the table, in server order: all a database made
    /// by an earlier migration or schema.sql can lack, since both make the creating
    /// migration's columns.
    public func added(to table: Table) -> [SyncedColumn] {
        (added[table.name] ?? []).compactMap { name in table.syncedColumns.first { $0.name == name } }
    }
}
