/// A column the toolchain adds to every table of a conflict and merge mode (every role but
/// `.user`): defined here once, so the generator's table lists and migrations and what the
/// runtime reads from them cannot disagree on a name, a type or where it stands.
public struct ImplicitColumn: SyncColumn, Hashable, Sendable {
    public let name: String
    public let type: ColumnType
    public let isNullable: Bool
    public let role: ColumnRole

    init(_ name: String, _ type: ColumnType, nullable: Bool = false, role: ColumnRole) {
        self.name = name
        self.type = type
        self.isNullable = nullable
        self.role = role
    }

    public static let id = ImplicitColumn(ReservedColumn.id, .uuid, role: .id)
    public static let owner = ImplicitColumn(ReservedColumn.owner, .uuid, role: .owner)
    public static let updatedMs = ImplicitColumn(ReservedColumn.updatedMs, .int, role: .updatedMs)
    public static let deletedMs = ImplicitColumn(ReservedColumn.deletedMs, .int, nullable: true, role: .deletedMs)
    public static let deviceId = ImplicitColumn(ReservedColumn.deviceId, .text, role: .deviceId)
    /// The stamps of a column-merge table, kept by the server's trigger and by every device.
    public static let columnStamps = ImplicitColumn(ReservedColumn.columnStamps, .json, nullable: true, role: .columnStamps)
    /// Null on a device until the server has numbered the row.
    public static let serverSeq = ImplicitColumn(ReservedColumn.serverSeq, .int, nullable: true, role: .serverSeq)

    /// A shared table's last writer: null on a device until a pull or a push answer brings it,
    /// and on the server until a user's write (not the service role's) lands.
    public static let updatedBy = ImplicitColumn(ReservedColumn.updatedBy, .uuid, nullable: true, role: .updatedBy)

    /// A version table's version column.
    public static func version(_ kind: VersionKind) -> ImplicitColumn {
        ImplicitColumn(kind.columnName, kind.columnType, role: .version)
    }

    /// The columns before the user's: the key and the owner.
    public static let leading: [ImplicitColumn] = [id, owner]

    /// The columns after the user's: the conflict columns (every table soft-deletes; an lww
    /// table that merges column by column also keeps the stamps), then server_seq.
    public static func trailing(conflict: ConflictMode, merge: MergeMode) -> [ImplicitColumn] {
        switch conflict {
        case .lww: [updatedMs, deletedMs, deviceId] + (merge == .column ? [columnStamps] : []) + [serverSeq]
        case .version(let kind): [deletedMs, version(kind), serverSeq]
        }
    }
}
