import Foundation
@_spi(Transport) import HopeSync

/// The server's pull function (Generated/supabase's `sync_pull`) with the rules of the table
/// pulls: one snapshot of every table, with the owner's mark.
extension InMemoryServer {
    @_spi(Transport) public func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        requestLog.append(.pullTables(after: Dictionary(cursors.own.map { ($0.table.name, $0.after) }) { first, _ in first }, since: mark))
        try admit()
        guard hasFunctions else { throw .lacksFunction(function) }
        let owner = user.userID.lowercasedString
        let current = marks[owner] ?? 0
        var pages: [String: PulledPage] = [:]
        var drifted: [String: [ServerError]] = [:]
        var scopes: [String: PulledScope]?
        if mark != current {
            // The function's page size: 1 to 1000 rows (and exits) a page.
            let size = min(max(limit, 1), 1_000)
            let access = access(of: owner)
            // An older build (no "@scopes") reads the scopes it is alone in among its own rows.
            let alone = cursors.scopes == nil ? scopesAlone(access) : nil
            for cursor in cursors.own {
                let name = cursor.table.name
                guard tables[name] != nil else {
                    drifted[name] = [ServerError(status: 404, code: "42P01", message: "relation \"public.\(name)\" does not exist")]
                    continue
                }
                // The function answers whole rows: a column the server lacks is missing from them.
                let missing = cursor.table.columnNames.filter { droppedColumns[name]?.contains($0) == true }
                guard missing.isEmpty else {
                    drifted[name] = missing.map { ServerError(status: 400, code: "42703", message: "column \(name).\($0) does not exist") }
                    continue
                }
                pages[name] = try ownPage(cursor, limit: size, access, alone: alone)
            }
            if let known = cursors.scopes {
                scopes = scopePages(known, sharedTables: cursors.sharedTables, limit: size, access)
            }
        }
        try answer()
        return PulledTables(mark: current, pages: pages, drifted: drifted, scopes: scopes, serverTimeMs: clock?())
    }

    /// The server's SQL predates the sync functions (`false`): requests to them fail as
    /// PostgREST fails them (PGRST202). `true` pastes the newer SQL.
    public func setHasFunctions(_ has: Bool) {
        hasFunctions = has
    }

    /// A write of the owner's rows moved their mark; a held write's moves when it commits.
    func moveMark(of owner: String, held: Bool) {
        markCounter += 1
        if held { heldMarks[owner] = markCounter } else { marks[owner] = markCounter }
    }

    /// The owner's mark now (0 before any write of theirs).
    public func mark(of owner: UUID) -> Int64 {
        marks[owner.lowercasedString] ?? 0
    }
}
