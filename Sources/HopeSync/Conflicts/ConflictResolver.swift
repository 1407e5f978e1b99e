/// Settles a conflict. Runs outside every database transaction, in a task of its own; a throw
/// or no answer within ``SyncConfiguration/resolverTimeout`` means ``ConflictResolution/hold``.
public typealias ConflictResolver = @Sendable (MutationConflict) async throws -> ConflictResolution
