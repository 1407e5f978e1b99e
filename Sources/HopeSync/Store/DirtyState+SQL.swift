import HopeSyncModel

extension DirtyState {
    /// The state as the store's SQL spells it: statements name states, never bare numbers.
    var sql: String { String(rawValue) }
}
