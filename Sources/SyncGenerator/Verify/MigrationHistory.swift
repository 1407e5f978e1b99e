import SyncSchema

/// Which migration brought each object into the schema, so a finding can say which file to
/// apply. Read from the migrations themselves or from the snapshot's record of their changes
/// (`table t`, `column t.c`, `index t.i`, `triggers t`).
struct MigrationHistory {
    private let entries: [(fileStem: String, changes: Set<String>)]

    init(migrations: [Migration]) {
        entries = migrations.map { ($0.fileStem, Set($0.steps.map(\.change))) }
    }

    init(snapshot: Snapshot?) {
        entries = (snapshot?.migrations ?? []).map { ($0.fileStem, Set($0.changes)) }
    }

    /// The first migration that creates a table: it also creates what all tables share.
    var first: String? {
        entries.first { $0.changes.contains { $0.hasPrefix("table ") } }?.fileStem
    }

    func creating(table: String) -> String? {
        entries.first { $0.changes.contains("table \(table)") }?.fileStem
    }

    func adding(column: String, to table: String) -> String? {
        entries.first { $0.changes.contains("column \(table).\(column)") }?.fileStem ?? creating(table: table)
    }

    /// The newest migration that wrote the index: the one that made a unique index per owner,
    /// when one did.
    func adding(index: String, on table: String) -> String? {
        entries.last { $0.changes.contains("index \(table).\(index)") }?.fileStem ?? creating(table: table)
    }

    /// The newest migration that wrote the table's triggers.
    func lastWritingTriggers(of table: String) -> String? {
        entries.last { $0.changes.contains("triggers \(table)") || $0.changes.contains("table \(table)") }?.fileStem
    }
}
