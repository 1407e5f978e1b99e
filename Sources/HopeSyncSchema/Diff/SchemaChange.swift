/// One change: what the diff finds, what a migration applies to both databases, and
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
    /// The expand step of a rename (decision 0052): `column` (its new name; `was` holds the
    /// old) is added on the server beside the old name and kept equal to it; devices rename
    /// theirs.
    case renameColumn(SyncedColumn, to: Table)
    /// A column new builds leave out: devices drop theirs; the server keeps it.
    case deprecateColumn(SyncedColumn, of: Table)
    /// The contract step of a rename, or the removal of a deprecated column, once
    /// `oldest_writer` passed the builds that write it: the server serves it read only.
    case retireColumn(RetiredColumn, of: Table)
    /// A table new builds leave out: devices drop theirs; the server keeps it.
    case deprecateTable(Table)
    /// The expand step of a table rename (decision 0054): the table (its `was` holds the old
    /// name) takes its new name on both databases; the server keeps the old one for old builds.
    case renameTable(Table)
    /// The contract step of a table rename, once `oldest_writer` passed the builds that know
    /// only `from`: the server keeps serving it to their pulls (the table's `formerNames`).
    case finishTableRename(Table, from: String)

    public var table: Table {
        switch self {
        case .createTable(let table), .addColumn(_, let table), .addIndex(_, let table), .replaceTriggers(let table),
            .replaceServerIndex(_, let table), .shareTable(let table), .renameColumn(_, let table), .deprecateColumn(_, let table),
            .retireColumn(_, let table), .deprecateTable(let table), .renameTable(let table), .finishTableRename(let table, _):
            table
        }
    }

    /// The change as the snapshot records it: `table t`, `column t.c`, `index t.i`, `triggers t`,
    /// `sharing t`, `rename t.old>new`, `deprecate t.c`, `retire t.c`, `deprecate t`,
    /// `rename table old>new`, `finish table old>new`.
    /// A name, not a copy of the table: the snapshot holds the schema once.
    public var recorded: String {
        switch self {
        case .createTable(let table): "table \(table.name)"
        case .addColumn(let column, let table): "column \(table.name).\(column.name)"
        case .addIndex(let index, let table), .replaceServerIndex(let index, let table): "index \(table.name).\(index.name)"
        case .replaceTriggers(let table): "triggers \(table.name)"
        case .shareTable(let table): "sharing \(table.name)"
        case .renameColumn(let column, let table): Self.renameRecord(table.name, from: column.twin ?? "", to: column.name)
        case .deprecateColumn(let column, let table): Self.deprecateRecord(table.name, column.name)
        case .retireColumn(let retired, let table): "retire \(table.name).\(retired.column.name)"
        case .deprecateTable(let table): Self.deprecateRecord(table.name)
        case .renameTable(let table): Self.tableRenameRecord(from: table.was ?? "", to: table.name)
        case .finishTableRename(let table, let old): "finish table \(old)>\(table.name)"
        }
    }

    /// How the snapshot records the rename of `table.old` to `new`, looked up to tell which
    /// migration introduced it.
    public static func renameRecord(_ table: String, from old: String, to new: String) -> String { "rename \(table).\(old)>\(new)" }

    public static func deprecateRecord(_ table: String, _ column: String) -> String { "deprecate \(table).\(column)" }

    public static func deprecateRecord(_ table: String) -> String { "deprecate \(table)" }

    /// How the snapshot records the rename of table `old` to `new` (decision 0054).
    public static func tableRenameRecord(from old: String, to new: String) -> String { "rename table \(old)>\(new)" }

    /// A recorded change read back against `schema`, a schema at or after the change. An index
    /// reads back as added: the record does not tell a replaced server index apart, and no
    /// reader needs it to. A lifecycle step reads back as nil (what it names may be gone): the
    /// readers (the server column order) find its columns in the recorded order; but a table's
    /// rename reads back (the migration that made the table under its name, for verify).
    public init?(recorded: String, in schema: Schema) {
        let parts = recorded.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        // `rename table old>new` reads back while the table has its new name (decision 0054).
        if parts[0] == "rename", parts[1].hasPrefix("table ") {
            let names = parts[1].dropFirst("table ".count).split(separator: ">").map(String.init)
            guard names.count == 2, var table = schema.table(named: names[1]) else { return nil }
            table.was = names[0]
            self = .renameTable(table)
            return
        }
        let qualified = parts[1].split(separator: ".", maxSplits: 1).map(String.init)
        guard let table = schema.table(named: qualified[0]) else { return nil }
        switch (parts[0], qualified.count) {
        case ("table", 1): self = .createTable(table)
        case ("triggers", 1): self = .replaceTriggers(table)
        case ("sharing", 1): self = .shareTable(table)
        case ("column", 2):
            guard let column = table.serverColumns.first(where: { $0.name == qualified[1] }) else { return nil }
            self = .addColumn(column, to: table)
        case ("index", 2):
            guard let index = table.indexes.first(where: { $0.name == qualified[1] }) else { return nil }
            self = .addIndex(index, on: table)
        default: return nil
        }
    }
}
