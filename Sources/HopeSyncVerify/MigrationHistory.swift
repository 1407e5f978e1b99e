import HopeSyncGeneratorCore
import HopeSyncSchema

/// Which migration brought each object into the schema, so a finding can say which file to
/// apply. Read from the migrations themselves or from the snapshot's record of their changes.
struct MigrationHistory {
    private let entries: [(fileStem: String, changes: [SchemaChange])]
    /// The migrations that re-created what the tables share without creating a table.
    private let sharedCodeStems: Set<String>
    /// The tables' columns in the order these migrations made them.
    let columnOrder: ServerColumnOrder

    init(migrations: [Migration]) {
        entries = migrations.map { ($0.fileStem, $0.changes) }
        sharedCodeStems = Set(migrations.filter(\.replacesSharedCode).map(\.fileStem))
        columnOrder = ServerColumnOrder(entries.flatMap(\.changes))
    }

    init(snapshot: Snapshot?) {
        guard let snapshot else {
            entries = []
            sharedCodeStems = []
            columnOrder = ServerColumnOrder()
            return
        }
        entries = snapshot.migrations.map { ($0.fileStem, $0.schemaChanges(in: snapshot.schema)) }
        sharedCodeStems = Set(snapshot.migrations.filter { $0.changes.contains(Migration.sharedCodeRecord) }.map(\.fileStem))
        columnOrder = ServerColumnOrder(recorded: snapshot.serverColumns, entries.flatMap(\.changes))
    }

    /// The first migration that creates a table: it also creates what all tables share.
    var first: String? {
        entries.first { $0.changes.contains { if case .createTable = $0 { true } else { false } } }?.fileStem
    }

    /// The last migration that made what all tables share: one that creates a table, or one
    /// that re-creates it because it renders differently.
    var lastWritingSharedCode: String? {
        entries.last { entry in
            sharedCodeStems.contains(entry.fileStem) || entry.changes.contains { if case .createTable = $0 { true } else { false } }
        }?.fileStem
    }

    func creating(table: String) -> String? {
        entries.first { $0.changes.contains { $0.creates(table: table) } }?.fileStem
    }

    func adding(column: String, to table: String) -> String? {
        entries.first { entry in
            entry.changes.contains {
                if case .addColumn(let added, let on) = $0 { added.name == column && on.name == table } else { false }
            }
        }?.fileStem ?? creating(table: table)
    }

    /// The newest migration that wrote the index: the one that made a unique index per owner,
    /// when one did.
    func adding(index: String, on table: String) -> String? {
        entries.last { entry in
            entry.changes.contains { change in
                switch change {
                case .addIndex(let written, let on), .replaceServerIndex(let written, let on): written.name == index && on.name == table
                default: false
                }
            }
        }?.fileStem ?? creating(table: table)
    }

    /// The newest migration that wrote the table's triggers.
    func lastWritingTriggers(of table: String) -> String? {
        entries.last { entry in
            entry.changes.contains { change in
                if case .replaceTriggers(let written) = change, written.name == table { return true }
                if case .shareTable(let written) = change, written.name == table { return true }
                return change.creates(table: table)
            }
        }?.fileStem
    }
}

extension SchemaChange {
    /// A rename makes the table under its name, its server code included (decision 0054).
    fileprivate func creates(table name: String) -> Bool {
        switch self {
        case .createTable(let table), .renameTable(let table): table.name == name
        default: false
        }
    }
}
