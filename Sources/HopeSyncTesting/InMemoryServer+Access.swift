import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel

/// What sharing adds to the server's state (docs/PROTOCOL.md, "Sharing (scopes)"): the exits
/// (public.sync_exits) and the users a request's writes reached, whose marks move when it
/// commits (public.sync_mark_users).
struct SharingState {
    var exits: [InMemoryServer.Exit] = []
    var reached: Set<String> = []
}

/// Who may read and write what, as the shared tables' policies decide (access.sql): a user's
/// current role in each scope (public.sync_scope_access), read once per request.
struct ScopeAccess {
    let user: String
    /// Each scope the user is a member of now, by id: their role and the membership table.
    let roles: [String: (role: MemberRole, members: String)]

    /// The user's role in `scope` when `table` is one of its scope table's tables.
    func role(in scope: String?, for table: TableSchema) -> MemberRole? {
        guard let scope, let entry = roles[scope], entry.members == table.scope?.membershipTable else { return nil }
        return entry.role
    }

    /// The select policy: own rows, or rows of the user's scopes (a scope row and a
    /// membership are always their scope's).
    func reads(_ values: [String: SyncValue], _ table: TableSchema) -> Bool {
        guard let kind = table.scope?.kind else { return isOwn(values) }
        let scope = table.scopeID(of: values)
        if kind == .scope || kind == .membership { return role(in: scope, for: table) != nil }
        return scope.map { role(in: $0, for: table) != nil } ?? isOwn(values)
    }

    /// The update policy (USING and WITH CHECK alike): own rows, or rows of scopes the user
    /// edits (a scope row is its own scope's).
    func writes(_ values: [String: SyncValue], _ table: TableSchema) -> Bool {
        guard let kind = table.scope?.kind else { return isOwn(values) }
        let scope = table.scopeID(of: values)
        if kind == .scope { return role(in: scope, for: table)?.canWrite == true }
        return scope.map { role(in: $0, for: table)?.canWrite == true } ?? isOwn(values)
    }

    private func isOwn(_ values: [String: SyncValue]) -> Bool {
        values[ReservedColumn.owner] == .text(user)
    }
}

extension TableSchema {
    /// The scope a row of this table is in (a scope row is its own); nil: its owner's own rows.
    func scopeID(of values: [String: SyncValue]) -> String? {
        guard let scope else { return nil }
        return values[scope.column]?.text?.lowercased()
    }
}

extension InMemoryServer {
    /// A row that left a stream (public.sync_exits): `scope` nil for its owner's own stream.
    struct Exit {
        let seq: Int64
        let scope: String?
        let owner: String
        let table: String
        let rowID: String
    }

    /// The server's membership tables, by name order.
    var membershipTables: [TableSchema] {
        tables.values.filter { $0.scope?.kind == .membership }.sorted { $0.name < $1.name }
    }

    /// `user`'s current memberships, as public.sync_scope_access holds them.
    func access(of user: String) -> ScopeAccess {
        var roles: [String: (role: MemberRole, members: String)] = [:]
        for table in membershipTables {
            for row in stores[table.name, default: [:]].values
            where row.values[ReservedColumn.owner] == .text(user) && (row.values[ReservedColumn.deletedMs] ?? .null) == .null {
                guard let scope = table.scopeID(of: row.values), let role = (row.values["role"]?.text).flatMap(MemberRole.init) else {
                    continue
                }
                roles[scope] = (role, table.name)
            }
        }
        return ScopeAccess(user: user, roles: roles)
    }

    /// The current memberships of `scope` in `members`, by id: (user, role).
    func memberships(of scope: String, in members: String) -> [(key: String, user: String, role: String)] {
        stores[members, default: [:]].compactMap { key, row in
            guard row.values[ScopeMembership.scopeColumn]?.text?.lowercased() == scope,
                (row.values[ReservedColumn.deletedMs] ?? .null) == .null,
                let user = row.values[ReservedColumn.owner]?.text?.lowercased()
            else { return nil }
            return (key, user, row.values["role"]?.text ?? "")
        }.sorted { $0.key < $1.key }
    }

    /// The scopes whose only current member is `access`'s user: what an older build's pull reads.
    func scopesAlone(_ access: ScopeAccess) -> Set<String> {
        Set(
            access.roles.filter { scope, entry in
                memberships(of: scope, in: entry.members).allSatisfy { $0.user == access.user }
            }.keys)
    }

    /// The tables whose rows are in `scopeTable`'s scopes (itself, scoped, following), by name.
    func tables(sharedIn scopeTable: String) -> [TableSchema] {
        tables.values.filter { $0.scope?.scopeTable == scopeTable && $0.scope?.kind != .membership }.sorted { $0.name < $1.name }
    }

    /// The scope a following row takes from the row it follows (the before-write trigger's
    /// `(select p.<column> from <parent> p where p.id = new.<through>)`). TableScope does not
    /// name the parent: it is the shared table of the same scope column holding that id (ids
    /// are uuids, unique across tables).
    func parentScope(of values: [String: SyncValue], _ table: TableSchema) -> SyncValue {
        guard let scope = table.scope, let through = scope.through, let parent = values[through]?.text?.lowercased() else { return .null }
        for candidate in tables(sharedIn: scope.scopeTable) where Self.holdsScope(in: scope.column, candidate, besides: table) {
            if let row = stores[candidate.name]?[parent] { return row.values[scope.column] ?? .null }
        }
        return .null
    }

    /// Whether `candidate`, another table than `table`, names its rows' scope in `column` (a
    /// scope table names none). Never inlined: Swift 6.3's release build crashes (an ownership
    /// verifier error in CopyPropagation) where `candidate.scope?.kind` is compared in
    /// parentScope's loop.
    @inline(never)
    private static func holdsScope(in column: String, _ candidate: TableSchema, besides table: TableSchema) -> Bool {
        guard candidate.name != table.name, let scope = candidate.scope else { return false }
        return scope.kind != .scope && scope.column == column
    }

    /// The tables that follow `table`'s rows: those whose scope comes through a reference.
    func followers(of table: TableSchema) -> [TableSchema] {
        guard let scope = table.scope, scope.kind == .scoped || scope.kind == .follows else { return [] }
        return tables(sharedIn: scope.scopeTable).filter { $0.scope?.kind == .follows && $0.scope?.column == scope.column }
    }

    /// The server's clock for what it stamps itself (added_at, a removal's deleted_ms); without
    /// a clock, a made-up time that moves with the sequence, so seeded runs repeat.
    func serverNowMs() -> Int64 {
        clock?() ?? 1_790_000_000_000 + sequence
    }

    /// Everything a request's writes change, to put back when a later row of it is refused:
    /// a statement is atomic.
    func savedState() -> SavedState {
        SavedState(stores: stores, sequence: sequence, versionClock: versionClock, nextVersionStamps: nextVersionStamps, sharing: sharing)
    }

    func restore(_ saved: SavedState) {
        stores = saved.stores
        sequence = saved.sequence
        versionClock = saved.versionClock
        nextVersionStamps = saved.nextVersionStamps
        sharing = saved.sharing
    }

    struct SavedState {
        let stores: [String: [String: StoredRow]]
        let sequence: Int64
        let versionClock: Int64
        let nextVersionStamps: [String]
        let sharing: SharingState
    }

    /// Moves the marks of the users the request's writes reached (the caller's own moves as
    /// before); a held write's move when it commits.
    func markReached(held: Bool) {
        for user in sharing.reached.sorted() { moveMark(of: user, held: held) }
        sharing.reached.removeAll()
    }

    /// Members of `scope` now, reached by a write of it.
    func reachMembers(of scope: String, in members: String) {
        sharing.reached.formUnion(memberships(of: scope, in: members).map(\.user))
    }
}
