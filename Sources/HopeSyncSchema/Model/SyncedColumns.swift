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
    /// On the server only: the other name of a renamed column while both are kept equal.
    public var twin: String?
    /// On the server only: a retired column, generated from `copies` (a column) or, without
    /// it, its default (or null).
    public var isRetired = false
    public var copies: String?
    /// On the server only: the conversions of a retyped rename (its new name's, and a retired
    /// old name's).
    public var retype: Retype?

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
        ImplicitColumn.leading.map(SyncedColumn.init) + columns.filter { !$0.isDeprecated }.map(SyncedColumn.init(user:))
            + ImplicitColumn.trailing(conflict: conflict, merge: merge).map(SyncedColumn.init)
            + (sharing == nil ? [] : [SyncedColumn(.updatedBy)])
    }

    /// Every column the server holds (decision 0052): the synced ones, the deprecated ones old
    /// builds still send, a renamed column's old name beside it, and the retired ones it serves.
    /// A renamed pair has no server default but the old name's when it is NOT NULL: an insert
    /// names one of the two, and the write trigger fills the other from it.
    public var serverColumns: [SyncedColumn] {
        let user = columns.flatMap { column -> [SyncedColumn] in
            guard let was = column.was else { return [SyncedColumn(user: column)] }
            var new = SyncedColumn(user: column)
            new.defaultValue = nil
            new.twin = was
            new.retype = column.retype
            var old = new
            old.name = was
            old.twin = column.name
            old.type = column.retype?.from ?? column.type
            old.defaultValue = column.isNullable ? nil : column.defaultValue
            return [new, old]
        }
        let retired = retired.map { retired in
            var column = SyncedColumn(user: retired.column)
            column.isNullable = true
            column.isRetired = true
            column.copies = retired.copies
            column.retype = retired.retype
            return column
        }
        return ImplicitColumn.leading.map(SyncedColumn.init) + user
            + ImplicitColumn.trailing(conflict: conflict, merge: merge).map(SyncedColumn.init)
            + (sharing == nil ? [] : [SyncedColumn(.updatedBy)]) + retired
    }

    /// The columns the server's write trigger merges one by one: every stamped server column
    /// but the retired ones (generated: nothing writes them).
    public var serverStampedColumns: [SyncedColumn] { serverColumns.stampedColumns.filter { !$0.isRetired } }

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
