import Foundation
import HopeSyncModel

/// What the runtime knows of one synced table. The generator writes these (HopeSchema's
/// `tables`); the runtime never guesses a column, it reads them from here.
public struct TableSchema: Sendable, Equatable {
    public let name: String
    /// Every column the server and the device share, in table order.
    public let columns: [ColumnSchema]
    public let primaryKey: String
    public let conflict: ConflictMode
    public let ordering: PullOrdering
    /// One open row per owner: open while `end` is null, closed at a later row's `start`.
    public let openRowRule: OpenRowRule?
    /// How its rows are shared; nil: each row is its owner's alone.
    public let scope: TableScope?

    public init(
        name: String,
        columns: [ColumnSchema],
        primaryKey: String = ReservedColumn.id,
        conflict: ConflictMode,
        ordering: PullOrdering,
        openRowRule: OpenRowRule? = nil,
        scope: TableScope? = nil
    ) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.conflict = conflict
        self.ordering = ordering
        self.openRowRule = openRowRule
        self.scope = scope
    }

    public func column(named name: String) -> ColumnSchema? {
        columns.first { $0.name == name }
    }

    public var columnNames: [String] { columns.map(\.name) }

    /// Whether the server alone writes the table (a membership table): a device never pushes it.
    package var isWrittenByServer: Bool { scope?.kind == .membership }

    /// Whether each column is its own last-writer-wins register (the table has `column_stamps`).
    package var mergesColumns: Bool { columns.mergesColumns }

    /// The registers of a column-merge table: the user's columns and `deleted_ms`.
    package var stampedColumns: [ColumnSchema] { columns.stampedColumns }

    /// The version column a guarded update of `values` is sent against; a table without one, or
    /// an update that sets nothing, is refused before anything is sent.
    package func guardedVersionColumn(setting values: ColumnValues) throws(SyncError) -> ColumnSchema {
        guard let kind = conflict.versionKind, let version = column(named: kind.columnName) else {
            throw SyncError(.configuration, "Table \(self.name) has no version column to guard a write with")
        }
        guard !values.columns.isEmpty else { throw SyncError(.invalidRequest, "A guarded update of \(self.name) sets nothing") }
        return version
    }

    /// The named columns' schemas, in the order named; none named means every column (a
    /// request never asks for `*`). An unknown name is an invalid request.
    package func columns(named names: [String]) throws(SyncError) -> [ColumnSchema] {
        guard !names.isEmpty else { return columns }
        var result: [ColumnSchema] = []
        for name in names {
            guard let column = column(named: name) else {
                throw SyncError(.invalidRequest, "Table \(self.name) has no column \(name)")
            }
            result.append(column)
        }
        return result
    }
}

/// A column as the generated table list declares it; the rules over a table's columns are
/// HopeSyncModel's (`SyncColumn`), shared with the generator.
public struct ColumnSchema: SyncColumn, Sendable, Equatable {
    public let name: String
    public let type: ColumnType
    public let isNullable: Bool
    public let role: ColumnRole
    /// When a file column's files are fetched (ignored for other columns).
    public let download: FileDownload

    public init(_ name: String, _ type: ColumnType, nullable: Bool = false, role: ColumnRole = .user, download: FileDownload = .eager) {
        self.name = name
        self.type = type
        self.isNullable = nullable
        self.role = role
        self.download = download
    }
}

public struct OpenRowRule: Sendable, Equatable {
    public let start: String
    public let end: String

    public init(start: String, end: String) {
        self.start = start
        self.end = end
    }
}

/// One generated local migration, applied in `version` order.
public struct LocalMigration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Everything the generator produced for one app: its tables and local migrations, and the
/// server function that pulls every table in one request.
public struct AppSchema: Sendable {
    public let tables: [TableSchema]
    public let migrations: [LocalMigration]
    /// The pull function (`sync_pull`); nil: each table is pulled by a request of its own.
    public let pullFunction: String?

    public init(tables: [TableSchema], migrations: [LocalMigration], pullFunction: String? = nil) {
        self.tables = tables
        self.migrations = migrations
        self.pullFunction = pullFunction
    }

    public func table(named name: String) -> TableSchema? {
        tables.first { $0.name == name }
    }

    /// The schema version this build was generated with: the number of its newest migration.
    /// Every request states it, and a server whose `oldest_writer` is above it refuses the
    /// build's writes (``SyncStatus/Phase/updateRequired``).
    public var schemaVersion: Int { migrations.last?.version ?? 0 }

    /// Every file column of every table, in schema order.
    public var fileColumns: [(table: TableSchema, column: ColumnSchema)] {
        tables.flatMap { table in table.columns.filter { $0.type.bucket != nil }.map { (table, $0) } }
    }
}

/// A generated row type: Codable with snake_case keys equal to the column names.
public protocol SyncRecord: Codable, Sendable, Equatable, Identifiable where ID == UUID {
    static var table: TableSchema { get }
    var id: UUID { get }

    /// The row's values in table order (`table.columns`), as the store writes them: a column
    /// the row has no property for (column_stamps, which the runtime keeps) is null. Generated
    /// rows write them column by column (``SyncColumnValue``); by default, through Codable.
    func columnValues() throws -> [SyncValue]

    /// A row from its values in table order, as the store reads them. Generated rows read them
    /// column by column (``ColumnRow``); by default, through Codable.
    init(columnValues values: [SyncValue]) throws
}

extension SyncRecord {
    public func columnValues() throws -> [SyncValue] {
        try RecordEncoder().encode(self, columns: Self.table.columnNames)
    }

    public init(columnValues values: [SyncValue]) throws {
        self = try RecordDecoder().decode(Self.self, columns: Self.table.columnNames, values: values)
    }
}
