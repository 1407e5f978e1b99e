/// A column as both databases hold it: the user's columns with the implicit ones around them,
/// each with the default and the reference schema.yaml gave it.
public struct SyncedColumn: SyncColumn, Equatable, Sendable {
    public var name: String
    public var type: ColumnType
    public var isNullable: Bool
    public var defaultValue: DefaultValue?
    public var role: ColumnRole
    public var references: String?
    /// When devices fetch a file column's files.
    public var download: FileDownload = .eager

    public init(_ column: ImplicitColumn) {
        self.name = column.name
        self.type = column.type
        self.isNullable = column.isNullable
        self.role = column.role
    }

    public init(user column: Column) {
        self.name = column.name
        self.type = column.type
        self.isNullable = column.isNullable
        self.defaultValue = column.defaultValue
        self.role = .user
        self.references = column.references
        self.download = column.download
    }
}

extension Table {
    /// Every column the server and the device share, in table order: id, owner, the user's
    /// columns, the conflict columns, server_seq, and for a shared table updated_by (a
    /// membership table lists its own columns).
    public var syncedColumns: [SyncedColumn] {
        ImplicitColumn.leading.map(SyncedColumn.init) + columns.map(SyncedColumn.init(user:))
            + ImplicitColumn.trailing(conflict: conflict, merge: merge).map(SyncedColumn.init)
            + (sharing == nil ? [] : [SyncedColumn(.updatedBy)])
    }

    /// Whether the server and the devices keep a stamp per column (`column_stamps`).
    public var mergesColumns: Bool { syncedColumns.mergesColumns }

    /// Whether a write replaces the whole row by its pair: last writer wins without column stamps.
    public var mergesWholeRows: Bool { conflict == .lww && !mergesColumns }

    /// The columns that are each a register of their own under column merge.
    public var stampedColumns: [SyncedColumn] { syncedColumns.stampedColumns }

    /// The rule that keeps one open row per owner, if the table declares it.
    public var openRowRule: (start: String, end: String)? {
        for rule in rules {
            if case .oneOpenRowPerOwner(let start, let end) = rule { return (start, end) }
        }
        return nil
    }
}
