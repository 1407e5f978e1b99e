import HopeSyncSchema

/// The order of each table's columns on the server, a fact of its migration history: the
/// columns the migration that created the table made, then each column a later migration added
/// (`add column` puts it last), in migration order. schema.sql creates its tables in this order,
/// so a fresh paste ends where the migrations end.
///
/// The snapshot records the order (`serverColumns`), so moving a shipped column in schema.yaml
/// moves it in the Swift and Rust outputs but not on the server. A snapshot written before it
/// recorded the order has it worked out from the record of changes, with the creating
/// migration's columns in schema order.
package struct ServerColumnOrder: Equatable, Sendable {
    /// Per table, the order the snapshot recorded.
    private var recorded: [String: [String]] = [:]
    /// Per table, the names of the columns added after its creating migration, oldest first.
    private var added: [String: [String]] = [:]
    /// Per table, the columns retired (dropped and made again, generated): they move last. Only
    /// a change as made moves one, never one read back from the snapshot (whose recorded order
    /// has the move already): a retirement reads back as nothing.
    private var moved: [String: [String]] = [:]

    /// From the order recorded last time and the changes of every migration since the first,
    /// oldest first.
    package init(recorded: [String: [String]]? = nil, _ changes: [SchemaChange] = []) {
        self.recorded = recorded ?? [:]
        for change in changes {
            switch change {
            case .addColumn(let column, let table), .renameColumn(let column, let table):
                added[table.name, default: []].append(column.name)
            case .retireColumn(let retired, let table):
                moved[table.name, default: []].append(retired.column.name)
            default: break
            }
        }
    }

    /// From the snapshot's record of every migration (and the order it recorded), read back
    /// against `schema`.
    package init(recorded: [String: [String]]?, _ migrations: [Snapshot.Entry], in schema: Schema) {
        self.init(recorded: recorded, migrations.flatMap { $0.schemaChanges(in: schema) })
    }

    /// The table's columns as the server holds them.
    package func columns(of table: Table) -> [SyncedColumn] {
        let server = table.serverColumns
        // A renamed table's order was recorded under its old names (decision 0054).
        let everyName = table.oldNames + [table.name]
        let later = everyName.flatMap { added[$0] ?? [] }
        let moved = everyName.flatMap { self.moved[$0] ?? [] }
        let created = everyName.reversed().lazy.compactMap { recorded[$0] }.first ?? server.map(\.name).filter { !later.contains($0) }
        var names = created.filter { !moved.contains($0) }
        for name in later + moved where !names.contains(name) { names.append(name) }
        // Defensive: a column no record names (none should be) goes last.
        for column in server where !names.contains(column.name) { names.append(column.name) }
        return names.compactMap { name in server.first { $0.name == name } }
    }

    /// Every table's order, as the snapshot records it.
    package func recording(_ schema: Schema) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: schema.tables.map { ($0.name, columns(of: $0).map(\.name)) })
    }
}
