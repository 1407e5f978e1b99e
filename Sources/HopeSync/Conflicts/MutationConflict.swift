import Foundation

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
    /// The user whose write the server's row holds (its `updated_by`), so a resolver can decide
    /// by user; a soft-deleted row's is the user who deleted it. Nil for a table that is not
    /// shared, a row that is gone, or a server older than the column.
    public let serverChangedBy: UUID?

    /// A conflict as a replay makes it (public so apps can test their resolvers).
    public init(
        mutationID: Int64, table: String, operation: MutationOperation, rowKey: [String: String], base: ColumnValues,
        local: ColumnValues?, server: ColumnValues?, changedOnServer: [String], conflictingColumns: [String],
        serverChangedBy: UUID? = nil
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
        self.serverChangedBy = serverChangedBy
    }
}
