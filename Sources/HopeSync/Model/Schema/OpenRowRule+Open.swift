import Foundation

extension OpenRowRule {
    /// Whether a row is open under the rule: its end unset and the row not deleted (`deleted`
    /// nil: the table has no `deleted_ms`). The store's saves and pulled pages and the in-memory
    /// server ask it here, so they cannot disagree on which rows the rule closes.
    package static func isOpen(end: SyncValue, deleted: SyncValue?) -> Bool {
        end == .null && (deleted ?? .null) == .null
    }
}
