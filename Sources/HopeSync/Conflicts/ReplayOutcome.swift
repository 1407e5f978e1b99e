import HopeSyncModel

/// What the read by key, after an empty answer to a guarded send, says about the write.
enum ReplayOutcome: Equatable {
    /// No row (deleted, or hidden by a policy): nil; for an update, a soft-deleted row too: the
    /// row as read, which the cache takes if the write is dropped.
    case gone(deleted: ColumnValues?)
    /// The row no longer meets the rest of the write's filter (a delete: already deleted).
    case filterMissed
    /// The row is at the base version and meets the filter: a policy denied the write.
    case policyDenied
    /// Another version already holding every value the write sets: an earlier send landed.
    case alreadyApplied(ColumnValues)
    /// Another version, none of the write's columns changed since the base: resend there.
    case staleBase(ColumnValues)
    /// Another version, and some of the write's columns moved.
    case moved(server: ColumnValues, changedOnServer: [String], conflictingColumns: [String])

    /// Classifies `server`, the row read by key (nil when none came back), for `write`.
    init(_ write: QueuedMutation, server: ColumnValues?) {
        guard let server else {
            self = .gone(deleted: nil)
            return
        }
        if write.operation == .update, let deleted = server[ReservedColumn.deletedMs], deleted != .null {
            self = .gone(deleted: server)
            return
        }
        guard write.filters.allSatisfy({ $0.matches(server[$0.column] ?? .null) }) else {
            self = .filterMissed
            return
        }
        let shown = server.subset(write.returning + write.filters.map(\.column))
        guard server[write.versionColumn]?.versionText != write.baseVersion else {
            self = .policyDenied
            return
        }
        guard write.operation == .update else {
            self = .moved(server: shown, changedOnServer: [], conflictingColumns: [])
            return
        }
        let columns = write.body.columns
        if columns.allSatisfy({ server[$0] == write.body[$0] }) {
            self = .alreadyApplied(shown)
            return
        }
        let changed = columns.filter { server[$0] != write.base[$0] }
        if changed.isEmpty {
            self = .staleBase(shown)
            return
        }
        self = .moved(server: shown, changedOnServer: changed, conflictingColumns: changed.filter { server[$0] != write.body[$0] })
    }
}
