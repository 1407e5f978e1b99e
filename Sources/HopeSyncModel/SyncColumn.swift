/// A synced column as the server, the devices and the generated table lists know it. The
/// generator's columns (with their defaults) and the runtime's `ColumnSchema` both are one, so
/// the rules over a table's columns below are written once, for both halves.
public protocol SyncColumn {
    var name: String { get }
    var type: ColumnType { get }
    var isNullable: Bool { get }
    var role: ColumnRole { get }
}

extension ColumnRole {
    /// Whether a column of this role is a register of its own under column merge: the user's
    /// columns and `deleted_ms`, so a delete and an edit of another column both survive.
    public var isStamped: Bool { self == .user || self == .deletedMs }
}

extension ColumnRole {
    /// Whether only the server writes a column of this role (server_seq, updated_by): a device
    /// never sends it nor sets it in a local save; pulls and push answers bring it.
    public var isWrittenByServerOnly: Bool { self == .serverSeq || self == .updatedBy }
}

extension Sequence where Element: SyncColumn {
    /// The registers of a column-merge table, in table order.
    public var stampedColumns: [Element] { filter { $0.role.isStamped } }

    /// Whether each column is its own last-writer-wins register: the table keeps
    /// `column_stamps`, which ``ImplicitColumn/trailing(conflict:merge:)`` adds exactly then.
    public var mergesColumns: Bool { contains { $0.role == .columnStamps } }
}
