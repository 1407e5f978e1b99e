import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// A viewer's device refuses a write to a row of a scope it only views at the save, naming the
/// scope, instead of queueing a write the server will refuse. The role is the one the last pull
/// listed; a scope it did not list (one this device made and has not synced) is writable.
extension StoreWriter {
    /// Throws `.notAllowed` when row `id` of `table` is, or (`values`: the row as it will be
    /// saved) would be, in a scope the user views.
    func refuseReadOnlyScope(of sql: TableSQL, id: String, values: [SyncValue]?) throws(SyncError) {
        guard let scope = sql.table.scope, scope.kind != .membership else { return }
        let scopes = try SyncError.local { () throws -> [String] in
            var scopes: [String] = []
            if scope.kind == .scope { return [id] }
            if let values, let index = sql.index(of: scope.column), let named = values[index].text { scopes.append(named) }
            if let stored = try database.fetchOne(
                "SELECT \(quoted(scope.column)) FROM \(sql.quotedName) \(sql.whereKey)", [.text(id)], { $0.text(at: 0) }) ?? nil
            {
                scopes.append(stored)
            }
            if scopes.isEmpty, scope.kind == .follows, let through = scope.through, let index = sql.index(of: through),
                let parent = values?[index].text
            {
                scopes += try parentScope(of: parent, scope)
            }
            return scopes
        }
        for named in Set(scopes) {
            let role = try SyncError.local { try store.role(in: named, database) }
            if role == .viewer {
                throw SyncError(
                    .notAllowed,
                    "You view \(scope.scopeTable) \(named) without editing it: only its owners and editors change its rows (\(sql.table.name) \(id))."
                )
            }
        }
    }

    /// The scope of the row a following table's row hangs from (a new row, whose scope column
    /// the server fills): found in the tables that hold a scope column of the same scope table.
    private func parentScope(of parent: String, _ scope: TableScope) throws -> [String] {
        for table in store.schema.tables(sharedBy: scope.scopeTable) {
            guard let column = Self.scopeColumn(holdingScopesOf: table) else { continue }
            if let found = try database.fetchOne(
                "SELECT \(quoted(column)) FROM \(quoted(table.name)) WHERE \(quoted(table.primaryKey)) = ?", [.text(parent)],
                { $0.text(at: 0) })
                ?? nil
            {
                return [found]
            }
        }
        return []
    }

    /// The column naming a row's scope in a table that holds one itself (a scope table, or a
    /// table with `scope: <column>`); nil for the others. Never inlined: Swift 6.3's release
    /// build crashes (an ownership verifier error in CopyPropagation) where `table.scope?.kind`
    /// is compared inside parentScope's loop.
    @inline(never)
    private static func scopeColumn(holdingScopesOf table: TableSchema) -> String? {
        guard let scope = table.scope, scope.kind == .scoped || scope.kind == .scope else { return nil }
        return scope.column
    }
}
