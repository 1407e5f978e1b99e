import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Sharing, read from the local database: a scope's members from its synced membership table,
/// and the scopes the user belongs to as the last pull listed them (`_sync_scopes`). Both are
/// what this device last synced: a change made elsewhere shows after the next pull.
extension SyncStore {
    /// The current members of `scope` (a row of a scope table), in the order they were added.
    public func members(of scope: some SyncRecord) throws(SyncError) -> [ScopeMember] {
        let table = type(of: scope).table
        let id = scope.id
        return try withReader { try StoreReader(store: self, database: $0).members(ofScope: id, in: table) }
    }

    /// The members of `scope` now and after every change (the first value at once).
    public func observeMembers(of scope: some SyncRecord) -> AsyncThrowingStream<[ScopeMember], any Error> {
        let table = type(of: scope).table
        let id = scope.id
        return observe { try $0.members(ofScope: id, in: table) }
    }

    /// The shared scopes the user belongs to, by scope table and id.
    public func sharedScopes() throws(SyncError) -> [SharedScope] {
        try withReader { try StoreReader(store: self, database: $0).sharedScopes() }
    }

    /// The shared scopes now and after every pull that changes them (the first value at once).
    public func observeSharedScopes() -> AsyncThrowingStream<[SharedScope], any Error> {
        observe { try $0.sharedScopes() }
    }

    // MARK: The engine's

    /// `table`'s schema as this store has it, and its membership table's, when `table` is a
    /// scope table; a clear error otherwise, before anything is sent.
    package func sharing(of table: TableSchema) throws(SyncError) -> (scope: TableSchema, members: TableSchema) {
        let scope = try tableSQL(table.name).table
        guard let sharing = scope.scope, sharing.kind == .scope else {
            throw SyncError(
                .invalidRequest, "\(table.name) is not a scope table (scope: true in schema.yaml): only a scope table's rows have members")
        }
        guard let members = tables[sharing.membershipTable]?.table else {
            throw SyncError(
                .configuration, "The membership table \(sharing.membershipTable) of \(table.name) is not in this store's schema.")
        }
        return (scope, members)
    }

    /// Where the scope row `id` of `table` is: absent here, made here and not on the server yet
    /// (no server_seq: never pushed, or its push not answered), or on the server.
    package func placeOfScope(_ id: UUID, in table: TableSchema) throws(SyncError) -> ScopeRowPlace {
        let sql = try tableSQL(table.name)
        let sequence = sql.table.columns.first { $0.role == .serverSeq }?.name ?? ReservedColumn.serverSeq
        return try withReader { database in
            let serverSeq = try database.fetchOne(
                "SELECT \(quoted(sequence)) FROM \(sql.quotedName) \(sql.whereKey)", [.text(id.lowercasedString)]
            ) { row in row.isNull(at: 0) ? nil : row.int64(at: 0) }
            switch serverSeq {
            case nil: return .absent
            case .some(nil): return .localOnly
            case .some(.some): return .onServer
            }
        }
    }

    /// Whether this device holds the membership of `userID` in scope `scopeID` as ended (a
    /// removal that changed nothing on the server was then a repeat).
    package func membershipEnded(of userID: UUID, in scopeID: UUID, table members: TableSchema) throws(SyncError) -> Bool {
        let sql = try tableSQL(members.name)
        return try withReader { database in
            try database.fetchOne(
                "SELECT 1 FROM \(sql.quotedName) WHERE scope_id = ? AND user_id = ? AND deleted_ms IS NOT NULL",
                [.text(scopeID.lowercasedString), .text(userID.lowercasedString)]
            ) { _ in true } ?? false
        }
    }

    /// The membership rows a change's answer holds, applied as pulled rows are: the members list
    /// shows the change at once, and the pull that brings the same rows changes nothing.
    package func applyMembershipRows(_ rows: [ColumnValues], in members: TableSchema) throws(SyncError) {
        guard !rows.isEmpty else { return }
        let sql = try tableSQL(members.name)
        try writeTransaction { database in
            let statement = try database.cachedStatement(sql.applyServerRow)
            for row in rows { _ = try applyServerRow(sql.names.map { row[$0] ?? .null }, sql, statement, database) }
        }
        state.notifyObservers()
    }

    /// Test hook: the scopes listed, replaced as a pull would replace them, for tests of the
    /// local reads that need no server.
    package func replaceSharedScopesForTesting(_ scopes: [SharedScope]) throws(SyncError) {
        try writeTransaction { database in
            try database.execute("DELETE FROM _sync_scopes")
            for scope in scopes {
                try database.execute(
                    "INSERT INTO _sync_scopes (scope_id, scope_table, role, arriving) VALUES (?, ?, ?, ?)",
                    [.text(scope.id.lowercasedString), .text(scope.table), .text(scope.role.rawValue), .integer(scope.isArriving ? 1 : 0)])
            }
        }
        state.notifyObservers()
    }
}

/// Where a scope row is, for a membership change: only a scope on the server has members.
package enum ScopeRowPlace: Sendable, Equatable {
    case absent, localOnly, onServer
}

extension StoreReader {
    /// The current members of `scope` (a row of a scope table), in the order they were added.
    public func members(of scope: some SyncRecord) throws(SyncError) -> [ScopeMember] {
        try members(ofScope: scope.id, in: type(of: scope).table)
    }

    /// The shared scopes the user belongs to, by scope table and id.
    public func sharedScopes() throws(SyncError) -> [SharedScope] {
        try SyncError.local {
            try database.fetchAll("SELECT scope_id, scope_table, role, arriving FROM _sync_scopes ORDER BY scope_table, scope_id") {
                row in
                let id = row.text(at: 0) ?? ""
                guard let scopeID = UUID(text: id) else { throw SyncError(.decoding, "_sync_scopes holds a scope id that is not a uuid") }
                return SharedScope(
                    id: scopeID, table: row.text(at: 1) ?? "", role: try Self.role(row.text(at: 2), in: "_sync_scopes"),
                    isArriving: row.int64(at: 3) != 0)
            }
        }
    }

    func members(ofScope id: UUID, in table: TableSchema) throws(SyncError) -> [ScopeMember] {
        let members = try store.sharing(of: table).members
        let sql = try store.tableSQL(members.name)
        return try SyncError.local {
            try database.fetchAll(
                """
                SELECT user_id, role, added_by, added_at FROM \(sql.quotedName)
                WHERE scope_id = ? AND deleted_ms IS NULL ORDER BY added_at, user_id
                """, [.text(id.lowercasedString)]
            ) { row in
                guard let user = row.text(at: 0).flatMap(UUID.init(text:)), let addedBy = row.text(at: 2).flatMap(UUID.init(text:)),
                    let addedAt = row.text(at: 3).flatMap(SyncTimestamp.init)
                else { throw SyncError(.decoding, "A row of \(members.name) does not read: a uuid or its added_at is not one") }
                return ScopeMember(
                    scopeID: id, userID: user, role: try Self.role(row.text(at: 1), in: members.name), addedBy: addedBy, addedAt: addedAt)
            }
        }
    }

    /// A stored role; one this build does not know fails the read, never passing as another.
    private static func role(_ text: String?, in table: String) throws(SyncError) -> MemberRole {
        guard let text, let role = MemberRole(rawValue: text) else {
            throw SyncError(.decoding, "\(table) holds the role '\(text?.prefix(32) ?? "")', which this build does not know")
        }
        return role
    }
}
