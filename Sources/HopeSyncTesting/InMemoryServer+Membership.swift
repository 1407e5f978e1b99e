import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel

/// Membership changes (Templates/supabase/membership.sql), as PostgREST runs them: an upsert on
/// (scope_id, user_id) to add a member or change a role, a patch of `deleted_ms` to end one.
/// The refusals are the trigger's and the policies', in the order PostgreSQL meets them.
extension InMemoryServer {
    @discardableResult
    @_spi(Transport) public func changeMembership(_ change: MembershipChange, in requested: TableSchema, as user: Credentials)
        async throws(SyncError) -> [ColumnValues]
    {
        requestLog.append(
            .changeMembership(table: requested.name, scopeID: change.scopeID, userID: change.userID, role: change.role?.rawValue))
        try admit()
        guard let table = tables[requested.name], table.scope?.kind == .membership else {
            throw Self.refusal(404, "42P01", "relation \"public.\(requested.name)\" does not exist")
        }
        let caller = user.userID.lowercasedString
        let (scope, member) = (change.scopeID.lowercasedString, change.userID.lowercasedString)
        let callerRole = access(of: caller).role(in: scope, for: table)
        let key: String?
        if let role = change.role {
            key = try share(scope, member, role.rawValue, in: table, caller: caller, callerRole: callerRole)
        } else {
            key = try end(scope, member, in: table, caller: caller, callerRole: callerRole)
        }
        if key != nil {
            // The scope's members and the user concerned (a removed member too).
            sharing.reached.insert(member)
            reachMembers(of: scope, in: table.name)
            markReached(held: false)
        }
        let stored = key.flatMap { stores[table.name]?[$0] }
        try answer()
        return stored.map { [ColumnValues(columns: requested.columnNames, values: requested.columnNames.map($0.value))] } ?? []
    }

    /// The upsert: the proposed insert's trigger (22023, HS001), the insert policy (42501: owners
    /// only), then the update of the existing membership (a repeat changes nothing; HS002).
    private func share(_ scope: String, _ member: String, _ role: String, in table: TableSchema, caller: String, callerRole: MemberRole?)
        throws(SyncError) -> String?
    {
        guard ScopeMembership.roles.contains(role) else {
            throw Self.refusal(400, "22023", "a member's role is owner, editor or viewer")
        }
        guard member != caller else {
            throw Self.refusal(
                400, "HS001", "nobody adds themselves or changes their own role: to leave, set your membership's deleted_ms")
        }
        guard callerRole == .owner else {
            throw Self.refusal(403, "42501", "new row violates row-level security policy for table \"\(table.name)\"")
        }
        guard let existing = membership(of: scope, member, in: table.name) else {
            return insertMembership(scope: scope, user: member, role: role, by: caller, in: table.name).key
        }
        let values = existing.value.values
        let open = (values[ReservedColumn.deletedMs] ?? .null) == .null
        let oldRole = values["role"]?.text
        if open, oldRole == role { return nil }
        if open, oldRole == MemberRole.owner.rawValue, role != oldRole { try keepLastOwner(scope, member, in: table.name) }
        _ = updateMembership(existing.key, in: table.name) { row in
            row["role"] = .text(role)
            row["added_by"] = .text(caller)
            if !open { row["added_at"] = .text(Self.timestampText(microseconds: serverNowMs() * 1_000)) }
            row[ReservedColumn.deletedMs] = .null
        }
        return existing.key
    }

    /// The patch: row-level security lets through only the member themselves or an owner, of a
    /// scope the caller is in (anything else changes no row); ending an ended one changes
    /// nothing; HS002 for the last owner.
    private func end(_ scope: String, _ member: String, in table: TableSchema, caller: String, callerRole: MemberRole?)
        throws(SyncError) -> String?
    {
        guard let existing = membership(of: scope, member, in: table.name), callerRole != nil,
            member == caller || callerRole == .owner, (existing.value.values[ReservedColumn.deletedMs] ?? .null) == .null
        else { return nil }
        if existing.value.values["role"]?.text == MemberRole.owner.rawValue { try keepLastOwner(scope, member, in: table.name) }
        _ = updateMembership(existing.key, in: table.name) { $0[ReservedColumn.deletedMs] = .int(serverNowMs()) }
        return existing.key
    }

    private func keepLastOwner(_ scope: String, _ member: String, in members: String) throws(SyncError) {
        guard !memberships(of: scope, in: members).contains(where: { $0.user != member && $0.role == MemberRole.owner.rawValue }) else {
            return
        }
        throw Self.refusal(
            400, "HS002", "the scope's last owner stays: make another member an owner first, or delete the scope")
    }

    /// The membership of `user` in `scope`, ended or not.
    func membership(of scope: String, _ user: String, in members: String) -> (key: String, value: StoredRow)? {
        stores[members, default: [:]].first { _, row in
            row.values[ScopeMembership.scopeColumn]?.text?.lowercased() == scope
                && row.values[ReservedColumn.owner]?.text?.lowercased() == user
        }.map { ($0.key, $0.value) }
    }

    /// A new membership as the insert trigger stamps it.
    func insertMembership(scope: String, user: String, role: String, by adder: String, in members: String) -> (key: String, seq: Int64) {
        sequence += 1
        let id = UUID().lowercasedString
        let values: [String: SyncValue] = [
            ReservedColumn.id: .text(id), ScopeMembership.scopeColumn: .text(scope), ReservedColumn.owner: .text(user), "role": .text(role),
            "added_by": .text(adder), "added_at": .text(Self.timestampText(microseconds: serverNowMs() * 1_000)),
            ReservedColumn.deletedMs: .null,
        ]
        stores[members, default: [:]][id] = StoredRow(values: values, seq: sequence)
        return (id, sequence)
    }

    /// A membership changed by `change`, with a new sequence number; returns it.
    func updateMembership(_ key: String, in members: String, _ change: (inout [String: SyncValue]) -> Void) -> Int64 {
        sequence += 1
        guard var row = stores[members]?[key] else { return sequence }
        change(&row.values)
        row.seq = sequence
        stores[members]?[key] = row
        return sequence
    }
}

/// Test controls for sharing.
extension InMemoryServer {
    /// The current members of `scope` (in any membership table) and their roles.
    public func members(of scope: UUID) -> [UUID: MemberRole] {
        var result: [UUID: MemberRole] = [:]
        for table in membershipTables {
            for member in memberships(of: scope.lowercasedString, in: table.name) {
                if let user = UUID(uuidString: member.user), let role = MemberRole(rawValue: member.role) { result[user] = role }
            }
        }
        return result
    }

    /// The exits taken so far, in sequence order: each row that left a stream (`scope` nil: its
    /// owner's own rows).
    public var exits: [(table: String, id: String, scope: String?, owner: String, serverSeq: Int64)] {
        sharing.exits.map { ($0.table, $0.rowID, $0.scope, $0.owner, $0.seq) }
    }
}
