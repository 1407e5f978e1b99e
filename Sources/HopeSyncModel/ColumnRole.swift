/// What a column is for. The toolchain adds every role but `.user` itself.
public enum ColumnRole: String, Codable, Hashable, Sendable {
    case id
    case owner
    case user
    case updatedMs
    case deletedMs
    case deviceId
    case version
    /// `column_stamps`: each column's (updated_ms, device_id), for column-by-column merge.
    case columnStamps
    case serverSeq
    /// `updated_by`: the user whose write a shared row holds, set by the server's write trigger
    /// (docs/decisions/0048-sharing-by-scope.md, "who changed it"); a device never sends it.
    case updatedBy
}

/// Names the toolchain owns. A user column may not take one, whatever the table's conflict
/// mode, so a table's implicit columns never depend on what the user called theirs.
public enum ReservedColumn {
    public static let id = "id"
    public static let owner = "user_id"
    public static let updatedMs = "updated_ms"
    public static let deletedMs = "deleted_ms"
    public static let deviceId = "device_id"
    public static let serverSeq = "server_seq"
    public static let columnStamps = "column_stamps"
    public static let updatedBy = "updated_by"

    public static let names: Set<String> = [
        id, owner, updatedMs, deletedMs, deviceId, serverSeq, columnStamps, updatedBy,
        VersionKind.timestamp.columnName, VersionKind.integer.columnName,
    ]
}
