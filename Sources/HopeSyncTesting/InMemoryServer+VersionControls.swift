import Foundation
import HopeSync

/// Test controls for version tables: what other devices and the server's policies do to a row
/// while this device's writes wait, and the stamps the version trigger gives.
extension InMemoryServer {
    /// The next timestamp versions the trigger stamps, in order (then it stamps its own again).
    public func setNextVersions(_ stamps: [String]) {
        nextVersionStamps = stamps
    }

    /// Another device's update of the row: `values` set, the version moved, a new sequence number.
    public func changeRow(in table: String, id: UUID, _ values: ColumnValues) {
        guard let schema = tables[table], var row = stores[table]?[id.lowercasedString]?.values else { return }
        for (column, value) in zip(values.columns, values.values) { row[column] = value }
        _ = writeShared(row, into: schema, over: stores[table]?[id.lowercasedString]?.values, by: nil)
        markReached(held: false)
    }

    /// The row removed from the server (a hard delete, or a purge).
    public func removeRow(from table: String, id: UUID) {
        stores[table]?[id.lowercasedString] = nil
    }

    /// A policy hides the row from its owner: reads and updates find nothing.
    public func hideRow(in table: String, id: UUID, _ hidden: Bool = true) {
        if hidden {
            hiddenRows[table, default: []].insert(id.lowercasedString)
        } else {
            hiddenRows[table]?.remove(id.lowercasedString)
        }
    }

    /// A policy lets the owner read the row but not update it: a guarded update finds nothing.
    public func denyUpdates(in table: String, id: UUID, _ denied: Bool = true) {
        if denied {
            updateDeniedRows[table, default: []].insert(id.lowercasedString)
        } else {
            updateDeniedRows[table]?.remove(id.lowercasedString)
        }
    }

    public func clearRequestLog() {
        requestLog.removeAll()
    }
}

/// A request as the in-memory server received it.
public enum InMemoryRequest: Sendable, Equatable {
    case upsert(table: String, rowCount: Int)
    case pull(table: String, after: Int64)
    /// A pull of every table through the pull function: each table's cursor, and the mark sent.
    case pullTables(after: [String: Int64], since: Int64?)
    case guardedUpdate(GuardedUpdateRequest)
    case fetch(table: String, id: UUID, columns: [String])
    /// A membership change: the membership table, the scope, the member, the role (nil: ended).
    case changeMembership(table: String, scopeID: UUID, userID: UUID, role: String?)
}

/// A guarded update as sent: the key, the base version, the values, the extra filters and the
/// columns asked back.
public struct GuardedUpdateRequest: Sendable, Equatable {
    public let table: String
    public let id: UUID
    public let baseVersion: String
    public let values: ColumnValues
    public let filters: [Filter]
    public let returning: [String]
}
