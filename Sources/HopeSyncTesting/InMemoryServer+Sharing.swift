import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel

/// The shared tables' write rules (Templates/supabase/access.sql, lock_stream.sql and
/// sharing_triggers.sql): who may write a row where, what the server sets in it, and what a
/// write sets off (a new scope's owner, a moved row's exit and its followers, a deleted scope's
/// rows and memberships), with the marks of every user it reached. A table without a scope
/// takes `write` alone, as before.
extension InMemoryServer {
    /// One upserted row under the policies and triggers, as PostgREST's upsert runs it: the
    /// proposed insert's check, the conflicting row's (an error, not a skip, under ON
    /// CONFLICT), the write, then the update's check on what it became. A refusal puts back
    /// everything the request wrote (`saved`). Returns the sequence numbers taken.
    func upsertShared(_ sent: [String: SyncValue], into table: TableSchema, as caller: String, restoring saved: SavedState?)
        throws(SyncError) -> [Int64]
    {
        let values = proposedInsert(sent, into: table)
        guard let scope = table.scope, let saved else { return write(values, into: table) }
        let key = values[ReservedColumn.id]?.text ?? ""
        let old = stores[table.name]?[key]?.values
        let access = access(of: caller)
        do throws(SyncError) {
            // INSERT's WITH CHECK on the proposed row, every row of an upsert (user_id was
            // checked with the request): a scoped row only into a scope the caller edits.
            let proposed = scope.kind == .follows ? parentScope(of: values, table).text?.lowercased() : table.scopeID(of: values)
            if scope.kind != .scope, let proposed, access.role(in: proposed, for: table)?.canWrite != true {
                throw Self.refusal(403, "42501", "new row violates row-level security policy for table \"\(table.name)\"")
            }
            if let old, !access.writes(old, table) {
                throw Self.refusal(
                    403, "42501", "new row violates row-level security policy (USING expression) for table \"\(table.name)\"")
            }
            if scope.kind == .scope, old == nil,
                membershipTables.contains(where: { $0.scope?.scopeTable != table.name && !memberships(of: key, in: $0.name).isEmpty })
            {
                throw Self.refusal(409, "23505", "another scope has this id")
            }
            let taken = writeShared(values, into: table, over: old, by: caller)
            if !taken.isEmpty, let old { try checkUpdate(key, in: table, from: old, access) }
            return taken
        } catch {
            restore(saved)
            throw error
        }
    }

    /// What the update's trigger and WITH CHECK refuse once a write of a row that existed is
    /// taken: deleting a scope when not its owner, a row left where the caller may not write.
    func checkUpdate(_ key: String, in table: TableSchema, from old: [String: SyncValue], _ access: ScopeAccess) throws(SyncError) {
        guard let new = stores[table.name]?[key]?.values else { return }
        if table.scope?.kind == .scope, (old[ReservedColumn.deletedMs] ?? .null) == .null,
            (new[ReservedColumn.deletedMs] ?? .null) != .null, access.role(in: key, for: table) != .owner
        {
            throw Self.refusal(403, "42501", "only an owner of this scope can delete it")
        }
        if !access.writes(new, table) {
            throw Self.refusal(403, "42501", "new row violates row-level security policy for table \"\(table.name)\"")
        }
    }

    /// `write` with the shared tables' triggers, past every policy (the server's own writes,
    /// tests' controls, and requests once checked): `old` is the row before the request
    /// changed it, `writer` the signed-in user (auth.uid(), nil for none). Returns every
    /// sequence number the write and what it set off took.
    func writeShared(_ values: [String: SyncValue], into table: TableSchema, over old: [String: SyncValue]?, by writer: String?)
        -> [Int64]
    {
        var taken = write(values, into: table)
        let key = values[ReservedColumn.id]?.text ?? ""
        if table.scope != nil, !taken.isEmpty {
            // The write trigger's updated_by: the signed-in user, or (none) the row's last one;
            // never what the request sent.
            stores[table.name]?[key]?.values[ReservedColumn.updatedBy] =
                writer.map(SyncValue.text) ?? old?[ReservedColumn.updatedBy] ?? .null
        }
        guard let scope = table.scope, !taken.isEmpty, var stored = stores[table.name]?[key] else { return taken }
        if scope.kind == .scope {
            if old == nil { taken += addCreator(of: key, stored.values, table) }
            if (old?[ReservedColumn.deletedMs] ?? .null) == .null, (stored.values[ReservedColumn.deletedMs] ?? .null) != .null {
                taken += endScope(key, table, deletedMs: stored.values[ReservedColumn.deletedMs] ?? .null, by: writer)
            }
            reachMembers(of: key, in: scope.membershipTable)
            return taken
        }
        // The before-write trigger's part, on the row as the write left it (same sequence
        // number): a follower is in its parent's scope whatever was sent; a row moved out of a
        // scope into own rows becomes the mover's.
        if scope.kind == .follows { stored.values[scope.column] = parentScope(of: stored.values, table) }
        let from = old.flatMap(table.scopeID(of:))
        let to = table.scopeID(of: stored.values)
        if let old, from != nil, to == nil { stored.values[ReservedColumn.owner] = writer.map(SyncValue.text) ?? old[ReservedColumn.owner] }
        stores[table.name]?[key] = stored
        if let old, from != to { taken += moved(key, table, from: from, to: to, owner: old[ReservedColumn.owner], by: writer) }
        if let to {
            reachMembers(of: to, in: scope.membershipTable)
        } else if let owner = stored.values[ReservedColumn.owner]?.text {
            sharing.reached.insert(owner)
        }
        return taken
    }

    /// A new scope's creator owns it (<scope>_creator_owner): their membership, unless one is
    /// there already.
    private func addCreator(of scope: String, _ values: [String: SyncValue], _ table: TableSchema) -> [Int64] {
        guard let members = table.scope?.membershipTable, let creator = values[ReservedColumn.owner]?.text?.lowercased(),
            membership(of: scope, creator, in: members) == nil
        else { return [] }
        sharing.reached.insert(creator)
        return [insertMembership(scope: scope, user: creator, role: MemberRole.owner.rawValue, by: creator, in: members).seq]
    }

    /// The moved trigger (<table>_moved): an exit in the stream the row left, that stream's
    /// readers marked, and the rows following it moved with it.
    private func moved(_ key: String, _ table: TableSchema, from: String?, to: String?, owner: SyncValue?, by writer: String?)
        -> [Int64]
    {
        sequence += 1
        let ownerText = owner?.text?.lowercased() ?? ""
        sharing.exits.append(Exit(seq: sequence, scope: from, owner: ownerText, table: table.name, rowID: key))
        var taken = [sequence]
        if let from, let members = table.scope?.membershipTable {
            reachMembers(of: from, in: members)
        } else {
            sharing.reached.insert(ownerText)
        }
        for follower in followers(of: table) {
            guard let through = follower.scope?.through else { continue }
            for (rowKey, row) in stores[follower.name, default: [:]].sorted(by: { $0.key < $1.key })
            where row.values[through]?.text?.lowercased() == key && follower.scopeID(of: row.values) == from {
                taken += serverWrite(
                    rowKey, in: follower, setting: follower.scope?.column ?? "", to: to.map(SyncValue.text) ?? .null, by: writer)
            }
        }
        return taken
    }

    /// A deleted scope (<scope>_deleted): its rows soft-deleted by the server, then every
    /// membership ended.
    private func endScope(_ scope: String, _ table: TableSchema, deletedMs: SyncValue, by writer: String?) -> [Int64] {
        var taken: [Int64] = []
        for shared in tables(sharedIn: table.name) where shared.scope?.kind != .scope {
            for (key, row) in stores[shared.name, default: [:]].sorted(by: { $0.key < $1.key })
            where shared.scopeID(of: row.values) == scope && (row.values[ReservedColumn.deletedMs] ?? .null) == .null {
                taken += serverWrite(key, in: shared, setting: ReservedColumn.deletedMs, to: deletedMs, by: writer)
            }
        }
        guard let members = table.scope?.membershipTable else { return taken }
        for member in memberships(of: scope, in: members) {
            taken.append(updateMembership(member.key, in: members) { $0[ReservedColumn.deletedMs] = .int(serverNowMs()) })
            sharing.reached.insert(member.user)
        }
        return taken
    }

    /// A write of the server's own (sharing_triggers.sql): `column` set, as a last-writer-wins
    /// row a pair past the stored one with device id '' (a column-merge row: that column's
    /// stamp alone), or with the version moved; through the table's triggers like any write.
    func serverWrite(_ key: String, in table: TableSchema, setting column: String, to value: SyncValue, by writer: String?) -> [Int64] {
        guard let stored = stores[table.name]?[key]?.values else { return [] }
        var values = stored
        values[column] = value
        let past = WriteStamp(ms: (stored[ReservedColumn.updatedMs]?.int ?? 0) + 1, deviceID: WriteStamp.serverDeviceID)
        switch table.conflict {
        case .lww where table.mergesColumns:
            values[ReservedColumn.columnStamps] = .text(ColumnStamps([column: past]).json)
        case .lww:
            values[ReservedColumn.updatedMs] = .int(past.ms)
            values[ReservedColumn.deviceId] = .text(past.deviceID)
        case .version:
            break // the write moves the version
        }
        return writeShared(values, into: table, over: stored, by: writer)
    }
}
