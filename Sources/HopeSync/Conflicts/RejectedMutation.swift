import Foundation

/// A write the server refused, kept until the app retries or dismisses it.
public struct RejectedMutation: Sendable, Equatable, Identifiable {
    public let id: Int64
    public let table: String
    public let operation: MutationOperation
    public let rowID: UUID
    /// What the write sent; nil for an upsert (the row itself waits) or a body too long to keep.
    public let body: ColumnValues?
    /// The server's answer; nil when a policy silently refused a guarded write.
    public let serverError: ServerError?
    public let message: String
    /// The user whose write the server kept instead, when the refusal met one: a version
    /// table's row pushed again whose server copy is kept (its `updated_by`). Nil otherwise,
    /// and when access ended: a device is not told who removed it, nor who moved a row away.
    public let changedBy: UUID?
    /// False when the body was too long to keep.
    public let isRetryable: Bool
    public let createdAtMs: Int64
    public let rejectedAtMs: Int64
}
