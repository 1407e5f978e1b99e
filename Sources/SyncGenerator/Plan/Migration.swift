import SyncSchema

/// One additive change, as both databases apply it.
public enum MigrationStep: Equatable, Sendable {
    /// A new table with everything it needs (triggers, policies, indexes, grants).
    case createTable(Table)
    /// A new column on an existing table (a user's, or `column_stamps`); `table` is the table
    /// as it is after the change.
    case addColumn(SyncedColumn, to: Table)
    /// A new index on an existing table.
    case addIndex(Index, on: Table)
    /// The table's trigger functions are re-created (an ordering option or a rule changed).
    case replaceTriggers(Table)
    /// The server's copy of a shipped unique index is dropped and created again unique per
    /// owner; the devices' copy is already per owner (each holds one user's rows).
    case replaceServerIndex(Index, on: Table)
}

/// A numbered migration: the steps that take the schema of the previous migration to
/// `schema`. Rendered once for SQLite and once for Supabase.
public struct Migration: Equatable, Sendable {
    /// 1, 2, 3 ... never reused; the files are `NNNN_name.sql`.
    public var number: Int
    /// Named after the change, e.g. `sessions_add_note`; `initial` for the first.
    public var name: String
    public var steps: [MigrationStep]
    /// The whole schema after this migration.
    public var schema: Schema

    public init(number: Int, name: String, steps: [MigrationStep], schema: Schema) {
        self.number = number
        self.name = name
        self.steps = steps
        self.schema = schema
    }

    /// `0002_sessions_add_note`.
    public var fileStem: String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + name
    }
}
