/// A local row's `_dirty` flag: whether it waits to be pushed. The generated SQLite migrations
/// index the rows in ``dirty``; the runtime moves rows between the states.
public enum DirtyState: Int64, Sendable, CaseIterable {
    case clean = 0
    case dirty = 1
    /// The server refused the write: on the rejected list, not retried until edited again.
    case rejected = 2
    /// A version-table row with guarded writes in `_sync_mutations` (not pushed as a whole row).
    case queued = 3

    /// The local column holding the state.
    public static let column = "_dirty"
}
