/// One additive change: what the diff finds, what a migration applies to both databases, and
/// what the snapshot records (by name, see ``recorded``). Every table is the table as it is
/// after the change.
public enum SchemaChange: Equatable, Sendable {
    /// A new table with everything it needs (triggers, policies, indexes, grants).
    case createTable(Table)
    /// A new column on an existing table: a user's, or `column_stamps` when a table starts
    /// merging column by column.
    case addColumn(SyncedColumn, to: Table)
    /// A new index on an existing table.
    case addIndex(Index, on: Table)
    /// The table's server functions and triggers are re-created (an ordering option, a rule
    /// or the merge changed, or the templates render them differently).
    case replaceTriggers(Table)
    /// A shipped unique index that the server holds unique across all owners (as hope-sync
    /// made them before they were per owner) is made unique per owner there; devices keep
    /// theirs, since each holds one owner's rows.
    case replaceServerIndex(Index, on: Table)
    /// A shipped table starts being shared (docs/decisions/0048-sharing-by-scope.md): a scope
    /// gets its membership table, and the table's policies and triggers follow its scope.
    case shareTable(Table)

    public var table: Table {
        switch self {
        case .createTable(let table), .addColumn(_, let table), .addIndex(_, let table), .replaceTriggers(let table),
            .replaceServerIndex(_, let table), .shareTable(let table):
            table
        }
    }

    /// The change as the snapshot records it: `table t`, `column t.c`, `index t.i`, `triggers t`,
    /// `sharing t`.
    /// A name, not a copy of the table: the snapshot holds the schema once.
    public var recorded: String {
        switch self {
        case .createTable(let table): "table \(table.name)"
        case .addColumn(let column, let table): "column \(table.name).\(column.name)"
        case .addIndex(let index, let table), .replaceServerIndex(let index, let table): "index \(table.name).\(index.name)"
        case .replaceTriggers(let table): "triggers \(table.name)"
        case .shareTable(let table): "sharing \(table.name)"
        }
    }

    /// A recorded change read back against `schema`, a schema at or after the change (changes
    /// are additive, so what it names is still there). An index reads back as added: the record
    /// does not tell a replaced server index apart, and no reader needs it to.
    public init?(recorded: String, in schema: Schema) {
        let parts = recorded.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        let qualified = parts[1].split(separator: ".", maxSplits: 1).map(String.init)
        guard let table = schema.table(named: qualified[0]) else { return nil }
        switch (parts[0], qualified.count) {
        case ("table", 1): self = .createTable(table)
        case ("triggers", 1): self = .replaceTriggers(table)
        case ("sharing", 1): self = .shareTable(table)
        case ("column", 2):
            guard let column = table.syncedColumns.first(where: { $0.name == qualified[1] }) else { return nil }
            self = .addColumn(column, to: table)
        case ("index", 2):
            guard let index = table.indexes.first(where: { $0.name == qualified[1] }) else { return nil }
            self = .addIndex(index, on: table)
        default: return nil
        }
    }
}
