import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// A queued guarded write as the replay works with it: its base (the version and the set
/// columns' values this device saw) moves only when the same user's earlier write to the row
/// comes back, never with a pulled row.
struct QueuedMutation: Sendable {
    let id: Int64
    let table: TableSchema
    let operation: MutationOperation
    let rowID: UUID
    var body: ColumnValues
    var baseVersion: String
    /// The set columns' values and the version, as this device saw them.
    var base: ColumnValues
    let filters: [Filter]
    let createdMs: Int64
    /// An earlier send got no answer, so it may have landed: the server's row can hold this
    /// write with somebody's later change on top (decision 0050).
    let mayHaveLanded: Bool

    var versionColumn: String {
        guard let column = table.conflict.versionColumn else { return "" }
        return column
    }

    /// What a send asks back: the key, the version and, for an update, the set columns.
    var returning: [String] {
        [table.primaryKey, versionColumn] + (operation == .update ? body.columns : [])
    }

    /// What the read by key asks for: `returning`, the filter columns, `deleted_ms` (an update
    /// of a soft-deleted row meets it as gone) and a shared table's `updated_by` (who wrote it).
    var readColumns: [String] {
        var names = returning
        for name in filters.map(\.column) + [ReservedColumn.deletedMs, ReservedColumn.updatedBy]
        where !names.contains(name) && table.column(named: name) != nil {
            names.append(name)
        }
        return names
    }

    /// The user whose write `server` (the row as read) holds; nil without the column.
    static func lastWriter(of server: ColumnValues?) -> UUID? {
        server?[ReservedColumn.updatedBy]?.text.flatMap(UUID.init(text:))
    }

    var rowKey: [String: String] { [table.primaryKey: rowID.lowercasedString] }

    /// Moves the base to the row the server holds now (a stale base, or a resolution to resend);
    /// false when that row has no version to send against.
    mutating func rebase(on server: ColumnValues) -> Bool {
        guard let version = server[versionColumn]?.versionText else { return false }
        baseVersion = version
        base = base.merging(server.subset(base.columns))
        return true
    }

    var publicValue: PendingMutation {
        PendingMutation(
            id: id, table: table.name, operation: operation, rowID: rowID, body: body, baseVersion: baseVersion, createdAtMs: createdMs)
    }
}
