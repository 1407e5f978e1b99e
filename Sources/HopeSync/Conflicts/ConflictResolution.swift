/// How a conflict is settled. An enum, unlike the types that may grow: apps build answers and
/// the runtime reads them, so code that builds them keeps compiling when an answer is added (a
/// `switch` over one, in a test say, would need the new case).
public enum ConflictResolution: Sendable, Equatable {
    /// Send the write again over the server's row as it is now.
    case keepLocal
    /// Drop the write; the server's values stand on the device too.
    case keepServer
    /// Send these columns instead (an update of a row still there): a merge the app works out.
    case apply(ColumnValues)
    /// Park the write on the conflicted list for the user to settle.
    case hold
}

extension ConflictResolution {
    /// What a sync does without a resolver: this device's change wins a row that moved (column
    /// by column, since an update sends only its columns); an update of a row that is gone is
    /// dropped, so nothing is recreated.
    public static func `default`(for conflict: MutationConflict) -> ConflictResolution {
        conflict.server == nil && conflict.operation == .update ? .keepServer : .keepLocal
    }
}
