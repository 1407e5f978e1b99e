/// A column as both databases hold it: the user's columns with the implicit ones around them.
public struct SyncedColumn: Equatable, Sendable {
    public var name: String
    public var type: ColumnType
    public var isNullable: Bool
    public var defaultValue: DefaultValue?
    public var role: ColumnRole
    public var references: String?

    init(_ name: String, _ type: ColumnType, nullable: Bool = false, role: ColumnRole) {
        self.name = name
        self.type = type
        self.isNullable = nullable
        self.role = role
    }

    public init(user column: Column) {
        self.name = column.name
        self.type = column.type
        self.isNullable = column.isNullable
        self.defaultValue = column.defaultValue
        self.role = .user
        self.references = column.references
    }
}

extension Table {
    /// Every column the server and the device share, in table order: id, owner, the user's
    /// columns, the conflict columns, server_seq.
    public var syncedColumns: [SyncedColumn] {
        var result = [
            SyncedColumn(ReservedColumn.id, .uuid, role: .id),
            SyncedColumn(ReservedColumn.owner, .uuid, role: .owner),
        ]
        result += columns.map(SyncedColumn.init(user:))
        switch conflict {
        case .lww:
            result.append(SyncedColumn(ReservedColumn.updatedMs, .int, role: .updatedMs))
            result.append(SyncedColumn(ReservedColumn.deletedMs, .int, nullable: true, role: .deletedMs))
            result.append(SyncedColumn(ReservedColumn.deviceId, .text, role: .deviceId))
            if merge == .column { result.append(columnStampsColumn) }
        case .version(let kind):
            result.append(SyncedColumn(ReservedColumn.deletedMs, .int, nullable: true, role: .deletedMs))
            result.append(SyncedColumn(kind.columnName, kind == .timestamp ? .timestamp : .int, role: .version))
        }
        result.append(SyncedColumn(ReservedColumn.serverSeq, .int, nullable: true, role: .serverSeq))
        return result
    }

    /// The columns that are each a register of their own under column merge: the user's
    /// columns and `deleted_ms`.
    public var stampedColumns: [SyncedColumn] {
        syncedColumns.filter { $0.role == .user || $0.role == .deletedMs }
    }

    /// The stamps of a column-merge table, kept by the server's trigger and by every device.
    public var columnStampsColumn: SyncedColumn {
        SyncedColumn(ReservedColumn.columnStamps, .json, nullable: true, role: .columnStamps)
    }

    /// The rule that keeps one open row per owner, if the table declares it.
    public var openRowRule: (start: String, end: String)? {
        for rule in rules {
            if case .oneOpenRowPerOwner(let start, let end) = rule { return (start, end) }
        }
        return nil
    }
}
