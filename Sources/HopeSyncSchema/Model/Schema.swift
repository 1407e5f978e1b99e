/// A validated schema: the synced tables of one app, in the order schema.yaml declares them.
///
/// This is the model every later stage reads. It holds only what the user wrote; the columns
/// the toolchain adds to every table (id, owner, conflict columns, server_seq) are derived from
/// it by ``Table/syncedColumns``, so they can never disagree with the conflict mode.
public struct Schema: Codable, Equatable, Sendable {
    public var tables: [Table]
    /// `oldest_writer`: the oldest schema version (a migration number) allowed to write. Builds
    /// made before it are refused every write (SQLSTATE HS010) and keep reading; nil lets every
    /// build write. Removals and the contract step of a rename wait until it passes them.
    public var oldestWriter: Int? = nil

    public init(tables: [Table], oldestWriter: Int? = nil) {
        self.tables = tables
        self.oldestWriter = oldestWriter
    }

    public func table(named name: String) -> Table? {
        tables.first { $0.name == name }
    }

    /// The tables new builds hold: all but the deprecated ones.
    public var clientTables: [Table] { tables.filter { !$0.isDeprecated } }

    /// The Storage buckets of the file columns, each once, in the order the schema names them.
    public var buckets: [String] {
        tables.flatMap(\.columns).compactMap(\.type.bucket).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }
}

public struct Table: Codable, Equatable, Sendable {
    public var name: String
    /// The generated Swift row type's name; nil means the table name, singular, in PascalCase.
    public var swiftName: String?
    public var conflict: ConflictMode
    /// How an lww table settles concurrent writes: column by column (the default) or whole rows.
    /// Version tables ignore it: their guarded writes send only the columns they set.
    public var merge: MergeMode
    /// Rows of one owner commit in server_seq order, so a pull needs no lookback.
    public var exactOrdering: Bool
    /// The user's columns, in declared order.
    public var columns: [Column]
    public var indexes: [Index]
    public var rules: [TableRule]
    /// Whether its rows are shared, and through what; nil: each row is its owner's alone.
    public var sharing: TableSharing?
    /// Columns gone from schema.yaml that the server still serves, read only, to builds below
    /// `oldest_writer` (decision 0052): the old name of a finished rename, a removed column. The
    /// snapshot carries them; schema.yaml never names them.
    public var retired: [RetiredColumn] = []
    /// `deprecated: true`: builds from now on neither hold nor sync it; the server keeps it for
    /// the builds that still do (decision 0052).
    public var isDeprecated = false
    /// `was: old` under a table: its name before a rename (decision 0054). Until `was` is removed
    /// (the contract step) old builds reach the same rows through the old name.
    public var was: String? = nil
    /// The names of finished renames, oldest first, that the server still serves to builds below
    /// `oldest_writer` (decision 0054). The snapshot carries them; schema.yaml never names them.
    public var formerNames: [String] = []

    public init(
        name: String,
        swiftName: String? = nil,
        conflict: ConflictMode = .lww,
        merge: MergeMode = .column,
        exactOrdering: Bool = true,
        columns: [Column],
        indexes: [Index] = [],
        rules: [TableRule] = [],
        sharing: TableSharing? = nil
    ) {
        self.name = name
        self.swiftName = swiftName
        self.conflict = conflict
        self.merge = merge
        self.exactOrdering = exactOrdering
        self.columns = columns
        self.indexes = indexes
        self.rules = rules
        self.sharing = sharing
    }

    public func column(named name: String) -> Column? {
        columns.first { $0.name == name }
    }

    /// Every name old builds know the table by, oldest first: the server keeps each one (a view
    /// of the table, a key of the pull function's answer).
    public var oldNames: [String] { formerNames + (was.map { [$0] } ?? []) }

    /// How far behind its cursor a pull starts: every client renders it from here, so the
    /// Swift and Rust table lists cannot disagree.
    public var pullOrdering: PullOrdering { exactOrdering ? .exact : .lookback(PullOrdering.defaultLookback) }
}

public struct Column: Codable, Equatable, Sendable {
    public var name: String
    public var type: ColumnType
    public var isNullable: Bool
    public var defaultValue: DefaultValue?
    /// A logical reference to another synced table's id. Never a foreign key: rows arrive in
    /// any order.
    public var references: String?
    /// When devices fetch a file column's files; the devices' choice alone, so changing it makes
    /// no migration.
    public var download: FileDownload
    /// `was: old`: the column's name before a rename. Until `was` is removed (the contract step)
    /// the server keeps both names, equal, for builds that know only the old one (decision 0052).
    public var was: String? = nil
    /// `was: { name: old, type: int, to: …, back: … }`: a rename that also changes the type,
    /// with the conversions both ways the server applies while both names are written.
    public var retype: Retype? = nil
    /// `deprecated: true`: builds from now on neither hold nor send it; the server keeps it
    /// for the builds that still do, until it is removed (decision 0052).
    public var isDeprecated = false
    /// `backfill: "<expression>"`: a PostgreSQL expression over the row's columns that fills
    /// the rows the column was added to, once, on the server (decision 0053). The snapshot keeps
    /// it after it ran, also when schema.yaml no longer says it.
    public var backfill: String? = nil

    public init(
        name: String,
        type: ColumnType,
        isNullable: Bool = false,
        defaultValue: DefaultValue? = nil,
        references: String? = nil,
        download: FileDownload = .eager
    ) {
        self.name = name
        self.type = type
        self.isNullable = isNullable
        self.defaultValue = defaultValue
        self.references = references
        self.download = download
    }
}

/// A column default, already checked against the column's type.
public enum DefaultValue: Codable, Equatable, Sendable {
    case text(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    /// The current time, for timestamp columns.
    case now
    /// A JSON document, stored as its canonical text.
    case json(String)
}

public struct Index: Codable, Equatable, Sendable {
    public var name: String
    public var columns: [String]
    public var isUnique: Bool

    public init(name: String, columns: [String], isUnique: Bool = false) {
        self.name = name
        self.columns = columns
        self.isUnique = isUnique
    }
}

/// The type a renamed column had, and the two conversions between its names, PostgreSQL
/// expressions: `to` over the old name gives the new value, `back` over the new name the old.
public struct Retype: Equatable, Sendable {
    public var from: ColumnType
    public var to: String
    public var back: String

    public init(from: ColumnType, to: String, back: String) {
        self.from = from
        self.to = to
        self.back = back
    }

    /// The types a retype converts between: SQLite's CAST converts them on devices.
    public static let types: [ColumnType] = [.text, .int, .double]
}

/// A column the server serves read only, as a stored generated column, to the builds that
/// still pull it: the old name of a finished rename (`copies` its new name) or a removed column
/// (its default, or null). Such builds may no longer write (`oldest_writer` passed them).
public struct RetiredColumn: Codable, Equatable, Sendable {
    public var column: Column
    /// The column whose values it serves; nil: it serves its default.
    public var copies: String?
    /// A finished retype's conversions: it serves `back` of `copies`.
    public var retype: Retype?

    public init(column: Column, copies: String? = nil, retype: Retype? = nil) {
        self.column = column
        self.copies = copies
        self.retype = retype
    }
}

public enum TableRule: Codable, Equatable, Sendable {
    /// At most one open row per owner, a row being open while `end` is null. When an open row
    /// arrives, the owner's other open rows that started before it are closed at its start; an
    /// open row that arrives after a later-started one is closed at that one's start. Ties on
    /// `start` are broken by id, so every database reaches the same answer.
    case oneOpenRowPerOwner(start: String, end: String)
}
