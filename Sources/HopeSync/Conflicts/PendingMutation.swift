import Foundation

/// A queued guarded write, replayed only while the server's row is at ``baseVersion``.
public struct PendingMutation: Sendable, Equatable, Identifiable {
    public let id: Int64
    public let table: String
    public let operation: MutationOperation
    public let rowID: UUID
    /// The columns the write sets (for a delete, `deleted_ms`).
    public let body: ColumnValues
    /// The version this device saw, as the exact text the server sent.
    public let baseVersion: String
    public let createdAtMs: Int64
}
