import Foundation
import HopeSyncModel

/// What a membership change writes, the same for every transport (docs/PROTOCOL.md, "Sharing
/// (scopes)"): an upsert on the scope and the user, or a patch of `deleted_ms` on both. The
/// server stamps the rest (`added_by`, `added_at`, `server_seq`, the removal's time).
extension MembershipChange {
    /// The membership table's unique pair an upsert lands on.
    package static let conflictColumns = [ScopeMembership.scopeColumn, userColumn]
    package static let userColumn = "user_id"
    package static let roleColumn = "role"

    /// The upsert's row, in the membership table's column order; nil for a change that ends the
    /// membership. `deleted_ms` null re-opens a membership that had ended (adding back).
    package var upsertedValues: ColumnValues? {
        guard let role else { return nil }
        return ColumnValues(
            columns: [ScopeMembership.scopeColumn, Self.userColumn, Self.roleColumn, ReservedColumn.deletedMs],
            values: [.text(scopeID.lowercasedString), .text(userID.lowercasedString), .text(role.rawValue), .null])
    }

    /// The patch that ends a membership. Any value marks it: the server writes its own time.
    package static let endingValues = ColumnValues(columns: [ReservedColumn.deletedMs], values: [.int(1)])

    /// The patch's filters: the one membership of the user in the scope.
    package var filters: [Filter] {
        [
            Filter(ScopeMembership.scopeColumn, .eq, .text(scopeID.lowercasedString)),
            Filter(Self.userColumn, .eq, .text(userID.lowercasedString)),
        ]
    }

    /// Refuses, before anything is sent, a table that is not a scope's membership table: the
    /// requests name columns only such a table has.
    package static func check(_ table: TableSchema) throws(SyncError) {
        guard table.scope?.kind == .membership else {
            throw SyncError(.invalidRequest, "\(table.name) is not a scope's membership table: memberships are changed there alone")
        }
        for column in [ScopeMembership.scopeColumn, userColumn, roleColumn, ReservedColumn.deletedMs]
        where table.column(named: column) == nil {
            throw SyncError(.configuration, "The membership table \(table.name) has no column \(column)")
        }
    }
}
