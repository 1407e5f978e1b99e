import Foundation

/// A write parked on the conflicted list until the app keeps one side or dismisses it.
public struct ConflictedMutation: Sendable, Equatable, Identifiable {
    public let id: Int64
    public let table: String
    public let operation: MutationOperation
    public let rowID: UUID
    /// What the write sets; nil when it was too long to keep (then only `apply` can resend it).
    public let body: ColumnValues?
    public let base: ColumnValues
    /// The server's row when the replay read it; nil when it was gone.
    public let server: ColumnValues?
    public let serverVersion: String?
    public let changedOnServer: [String]
    public let conflictingColumns: [String]
    /// The user whose write the server's row held when the replay read it (its `updated_by`):
    /// another member's, or this user's from another device. Nil for a table that is not
    /// shared, a row that was gone, or a server older than the column.
    public let serverChangedBy: UUID?
    /// Why it was parked.
    public let message: String
    public let createdAtMs: Int64
    public let conflictedAtMs: Int64
}
