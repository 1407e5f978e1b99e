import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel

/// The pull function's sharing (Templates/supabase/shared_pull.sql): the own stream's pages, in
/// either request shape, and every scope the caller is a member of, each in its own stream.
extension InMemoryServer {
    /// One own-stream table's page. `alone` (the request without `"@scopes"`, an older build):
    /// own rows and the rows of scopes whose only member is the caller, without exits. Otherwise
    /// own rows with the exits of own rows; a scope table's page is empty (a scope row is in its
    /// own scope's stream). A membership table is no part of the own stream: no page.
    func ownPage(_ cursor: TableCursor, limit: Int, _ access: ScopeAccess, alone: Set<String>?) throws(SyncError) -> PulledPage? {
        let table = cursor.table
        guard let server = tables[table.name], let kind = server.scope?.kind else {
            return try page(of: table, after: cursor.after, limit: limit, owner: access.user)
        }
        let me = SyncValue.text(access.user)
        let own: ([String: SyncValue]) -> Bool = { server.scopeID(of: $0) == nil && $0[ReservedColumn.owner] == me }
        if kind == .membership { return nil }
        if let alone {
            return streamPage(
                of: table, after: cursor.after, limit: limit,
                rows: { values in
                    let scope = server.scopeID(of: values)
                    return kind == .scope ? scope.map(alone.contains) == true : own(values) || scope.map(alone.contains) == true
                }, undecodableOf: access.user)
        }
        if kind == .scope { return PulledPage(rows: [], receivedCount: 0, lastServerSeq: nil, serverTimeMs: clock?()) }
        let exits = sharing.exits.filter { $0.scope == nil && $0.owner == access.user && $0.table == table.name }
        return streamPage(of: table, after: cursor.after, limit: limit, rows: own, exits: exits, undecodableOf: access.user)
    }

    /// Every scope the caller is a member of now, with their role: a scope the request names
    /// reads the tables its entry names past their cursors; one it does not (joined) reads every
    /// table of it from 0. Each (table, scope) page holds rows and exits, at most `limit`.
    func scopePages(_ known: [String: [TableCursor]], sharedTables: [TableSchema], limit: Int, _ access: ScopeAccess) -> [String:
        PulledScope]
    {
        var result: [String: PulledScope] = [:]
        for (scope, entry) in access.roles {
            guard let scopeTable = tables[entry.members]?.scope?.scopeTable else { continue }
            // The scope's tables as the server has them, the membership table last.
            let held = tables(sharedIn: scopeTable) + [tables[entry.members]].compactMap { $0 }
            let cursors: [TableCursor]
            if let named = known[scope] {
                cursors = named.filter { cursor in held.contains { $0.name == cursor.table.name } }
            } else {
                // The device's definition where it has one: the rows it reads, as the function's
                // whole rows would decode.
                cursors = held.map { table in TableCursor(sharedTables.first { $0.name == table.name } ?? table, after: 0) }
            }
            var pages: [String: PulledPage] = [:]
            for cursor in cursors {
                guard let server = tables[cursor.table.name] else { continue }
                let exits =
                    server.scope?.kind == .membership ? [] : sharing.exits.filter { $0.scope == scope && $0.table == server.name }
                pages[server.name] = streamPage(
                    of: cursor.table, after: cursor.after, limit: limit, rows: { server.scopeID(of: $0) == scope }, exits: exits,
                    undecodableOf: nil)
            }
            result[scope] = PulledScope(role: entry.role, pages: pages)
        }
        return result
    }
}
