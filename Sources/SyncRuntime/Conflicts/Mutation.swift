import Foundation

/// What a queued write of a version table does to its row.
public enum MutationOperation: String, Sendable, Equatable, Codable {
    case update = "UPDATE"
    /// A soft delete: a guarded update that sets `deleted_ms`, so other devices pull it.
    case delete = "DELETE"
    /// A whole-row upsert (last writer wins): only ever on the rejected list.
    case upsert = "UPSERT"
}

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

/// How a conflict is settled.
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

/// A queued write whose row moved on the server, as the resolver is shown it.
public struct MutationConflict: Sendable, Equatable {
    public let mutationID: Int64
    public let table: String
    public let operation: MutationOperation
    /// The key as the write pins it, as text.
    public let rowKey: [String: String]
    /// What this device saw: the set columns and the version.
    public let base: ColumnValues
    /// What the write sets; nil for a delete.
    public let local: ColumnValues?
    /// The server's row now (key, version, set columns); nil when it is gone.
    public let server: ColumnValues?
    /// The set columns whose server value differs from the base.
    public let changedOnServer: [String]
    /// Of those, the ones the write sets to another value than the server's.
    public let conflictingColumns: [String]

    /// A conflict as a replay makes it (public so apps can test their resolvers).
    public init(
        mutationID: Int64, table: String, operation: MutationOperation, rowKey: [String: String], base: ColumnValues,
        local: ColumnValues?, server: ColumnValues?, changedOnServer: [String], conflictingColumns: [String]
    ) {
        self.mutationID = mutationID
        self.table = table
        self.operation = operation
        self.rowKey = rowKey
        self.base = base
        self.local = local
        self.server = server
        self.changedOnServer = changedOnServer
        self.conflictingColumns = conflictingColumns
    }
}

/// Settles a conflict. Runs outside every database transaction, in a task of its own; a throw
/// or no answer within ``SyncConfiguration/resolverTimeout`` means ``ConflictResolution/hold``.
public typealias ConflictResolver = @Sendable (MutationConflict) async throws -> ConflictResolution

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
    /// Why it was parked.
    public let message: String
    public let createdAtMs: Int64
    public let conflictedAtMs: Int64
}

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
    /// False when the body was too long to keep.
    public let isRetryable: Bool
    public let createdAtMs: Int64
    public let rejectedAtMs: Int64
}
