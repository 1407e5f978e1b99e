import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// A scope the user belongs to, as the last pull listed it, with its tables' cursors.
struct KnownScope: Sendable {
    let scopeTable: String
    let role: MemberRole
    /// Each of its tables' cursor (absent: 0).
    let cursors: [String: Int64]
    /// Whether some table of it has rows still to pull since the pull that first listed it.
    let isArriving: Bool
}

/// The streams a pull reads (docs/PROTOCOL.md, "Sharing (scopes)"): the scopes the user
/// belongs to with a cursor per (scope, table), and what ends with a scope.
extension SyncStore {
    /// The scopes the last pull listed, by id.
    func knownScopes() throws(SyncError) -> [String: KnownScope] {
        try withWriter { try knownScopes($0) }
    }

    func knownScopes(_ database: Database) throws -> [String: KnownScope] {
        var cursors: [String: [String: Int64]] = [:]
        for (scope, table, serverSeq) in try database.fetchAll(
            "SELECT scope_id, table_name, server_seq FROM _sync_stream_cursors", [],
            { ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "", $0.int64(at: 2)) })
        {
            cursors[scope, default: [:]][table] = serverSeq
        }
        let scopes = try database.fetchAll("SELECT scope_id, scope_table, role, arriving FROM _sync_scopes", []) {
            ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "", MemberRole(rawValue: $0.text(at: 2) ?? "") ?? .viewer, $0.int64(at: 3) != 0)
        }
        return Dictionary(
            scopes.map { id, table, role, arriving in
                (id, KnownScope(scopeTable: table, role: role, cursors: cursors[id] ?? [:], isArriving: arriving))
            },
            uniquingKeysWith: { first, _ in first })
    }

    /// The scope the local copy of row `id` of `table` is in; nil for an own row, or a row this
    /// device does not hold.
    func scope(ofRow id: String, in table: TableSchema) throws(SyncError) -> String? {
        guard let column = table.scope?.column else { return nil }
        return try withWriter { database in
            try database.fetchOne(
                "SELECT \(quoted(column)) FROM \(quoted(table.name)) WHERE \(quoted(table.primaryKey)) = ?", [.text(id)]
            ) { $0.text(at: 0) } ?? nil
        }
    }

    /// The user's role in `scope` as the last pull listed it; nil for a scope it did not list
    /// (one this device made and has not synced, or one the user does not belong to).
    func role(in scope: String, _ database: Database) throws -> MemberRole? {
        try database.fetchOne("SELECT role FROM _sync_scopes WHERE scope_id = ?", [.text(scope)]) {
            MemberRole(rawValue: $0.text(at: 0) ?? "")
        } ?? nil
    }

    /// The user's membership of `scope` ended (removed, left, or the scope deleted): its rows go
    /// from every table it holds, each unaccepted edit of them to the rejected list, and its
    /// cursors with it. Its files go at the pass's reconcile, right after (SyncStore+Files.swift:
    /// a copy no remaining row or unaccepted write names).
    /// Returns how many rows went.
    @discardableResult
    func endScope(_ scope: String, scopeTable: String, _ database: Database) throws -> Int {
        let reason =
            "Access to \(scopeTable) \(scope) ended before this change was accepted: the scope was deleted or you are no longer a member."
        var removed = 0
        // Following tables first: a row added here and not sent has no scope column yet (the
        // server fills it), so it is found through its parent, before the parent goes.
        let tables = schema.tables(sharedBy: scopeTable)
        let followersFirst = tables.filter { $0.scope?.kind == .follows } + tables.filter { $0.scope?.kind != .follows }
        for table in followersFirst {
            guard let column = table.scope?.column else { continue }
            var condition = "\(quoted(column)) = ?"
            var arguments: [DatabaseValue] = [.text(scope)]
            if let through = table.scope?.through {
                for parent in tables where parent.scope?.kind == .scoped {
                    guard let parentColumn = parent.scope?.column else { continue }
                    condition += """
                         OR (\(quoted(column)) IS NULL AND \(quoted(through)) IN \
                        (SELECT \(quoted(parent.primaryKey)) FROM \(quoted(parent.name)) WHERE \(quoted(parentColumn)) = ?))
                        """
                    arguments.append(.text(scope))
                }
            }
            removed += try revokeRows(of: table, where: "(\(condition))", arguments, reason: reason, database)
        }
        try database.execute("DELETE FROM _sync_stream_cursors WHERE scope_id = ?", [.text(scope)])
        try database.execute("DELETE FROM _sync_scopes WHERE scope_id = ?", [.text(scope)])
        return removed
    }

    /// Deletes the rows of `table` meeting `condition`, after their unaccepted writes went to
    /// the rejected list with `reason`. Returns how many rows went.
    @discardableResult
    func revokeRows(of table: TableSchema, where condition: String, _ arguments: [DatabaseValue], reason: String, _ database: Database)
        throws -> Int
    {
        let sql = try tableSQL(table.name)
        let unaccepted = try database.fetchAll(
            "SELECT \(quoted(table.primaryKey)) FROM \(sql.quotedName) WHERE \(condition) AND _dirty <> \(DirtyState.clean.sql)", arguments
        ) { $0.text(at: 0) ?? "" }
        if !unaccepted.isEmpty {
            try guardedWrites.rejectUnacceptedWrites(ofRows: unaccepted, sql, reason: reason, for: self, database)
        }
        try database.execute("DELETE FROM \(sql.quotedName) WHERE \(condition)", arguments)
        return database.changes
    }
}
