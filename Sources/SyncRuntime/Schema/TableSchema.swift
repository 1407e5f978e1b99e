import Foundation

/// What the runtime knows of one synced table. The generator writes these (HopeSchema's
/// `tables`); the runtime never guesses a column, it reads them from here.
public struct TableSchema: Sendable, Equatable {
    public let name: String
    /// Every column the server and the device share, in table order.
    public let columns: [ColumnSchema]
    public let primaryKey: String
    public let conflict: ConflictStrategy
    public let ordering: PullOrdering
    /// One open row per owner: open while `end` is null, closed at a later row's `start`.
    public let openRowRule: OpenRowRule?

    public init(
        name: String,
        columns: [ColumnSchema],
        primaryKey: String = "id",
        conflict: ConflictStrategy,
        ordering: PullOrdering,
        openRowRule: OpenRowRule? = nil
    ) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.conflict = conflict
        self.ordering = ordering
        self.openRowRule = openRowRule
    }

    public func column(named name: String) -> ColumnSchema? {
        columns.first { $0.name == name }
    }

    public var columnNames: [String] { columns.map(\.name) }

    /// Whether each column is its own last-writer-wins register (the table has `column_stamps`).
    public var mergesColumns: Bool { columns.contains { $0.role == .columnStamps } }

    /// The registers of a column-merge table: the user's columns and `deleted_ms`.
    public var stampedColumns: [ColumnSchema] { columns.filter { $0.role == .user || $0.role == .deletedMs } }

    /// The version column a guarded update of `values` is sent against; a table without one, or
    /// an update that sets nothing, is refused before anything is sent.
    public func guardedVersionColumn(setting values: ColumnValues) throws(SyncError) -> ColumnSchema {
        guard case .version(let name, _) = conflict, let version = column(named: name) else {
            throw SyncError(.configuration, "Table \(self.name) has no version column to guard a write with")
        }
        guard !values.columns.isEmpty else { throw SyncError(.invalidRequest, "A guarded update of \(self.name) sets nothing") }
        return version
    }

    /// The named columns' schemas, in the order named; none named means every column (a
    /// request never asks for `*`). An unknown name is an invalid request.
    public func columns(named names: [String]) throws(SyncError) -> [ColumnSchema] {
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

public struct ColumnSchema: Sendable, Equatable {
    public let name: String
    public let type: ColumnKind
    public let isNullable: Bool
    public let role: ColumnRole

    public init(_ name: String, _ type: ColumnKind, nullable: Bool = false, role: ColumnRole = .user) {
        self.name = name
        self.type = type
        self.isNullable = nullable
        self.role = role
    }
}

public enum ColumnKind: Sendable, Equatable {
    case text, int, double, bool, uuid, timestamp, json, bytes
    case enumeration([String])
}

public enum ColumnRole: String, Sendable, Equatable {
    case id, owner, user, updatedMs, deletedMs, deviceId, version, serverSeq
    /// `column_stamps`: each column's (updated_ms, device_id), kept by the store and the server.
    case columnStamps
}

public enum ConflictStrategy: Sendable, Equatable {
    /// Last writer wins on (updated_ms, device_id).
    case lastWriterWins
    /// Queued updates and deletes replay only while the server row has the version seen.
    case version(column: String, kind: VersionKind)

    public enum VersionKind: String, Sendable, Equatable {
        case timestamp, integer
    }
}

/// How far behind its cursor a pull starts.
public enum PullOrdering: Sendable, Equatable {
    /// The server commits one owner's rows in server_seq order: start at the cursor.
    case exact
    /// Commits may land out of order: start this many sequence numbers behind the cursor.
    case lookback(Int64)
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

/// Everything the generator produced for one app: its tables and local migrations.
public struct AppSchema: Sendable {
    public let tables: [TableSchema]
    public let migrations: [LocalMigration]

    public init(tables: [TableSchema], migrations: [LocalMigration]) {
        self.tables = tables
        self.migrations = migrations
    }

    public func table(named name: String) -> TableSchema? {
        tables.first { $0.name == name }
    }
}

/// A generated row type: Codable with snake_case keys equal to the column names.
public protocol SyncRecord: Codable, Sendable, Equatable, Identifiable where ID == UUID {
    static var table: TableSchema { get }
    var id: UUID { get }
}
