import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel

extension FleetBenchmark {
    /// The shared lists' part of the end-of-run check: the server's memberships are the plan's,
    /// each user is served exactly their own rows and their lists' (read as the administrator,
    /// past row-level security), every shared write a device made is accounted for, and every
    /// device holds exactly its lists' server rows and lists exactly its user's lists.
    struct SharedCheck {
        var lists = 0
        /// ``checkAcknowledged(_:against:into:)`` over the acknowledged writes of shared rows.
        var acked = Check().acked
        var ackedLost: [String] = []
        var writes = (count: 0, new: 0, acked: 0, listed: 0, replaced: 0, lost: 0)
        var memberships = (server: 0, differing: 0)
        var users = (count: 0, wrongView: 0)
        var devices = (count: 0, converged: 0, rows: 0, mismatchedRows: 0, wrongScopes: 0)
        var skipped = 0
        var errors: [String: Int] = [:]
        var examples: [String] = []

        /// Shared writes lost: acknowledged ones no later write explains, rows missing, and
        /// writes that were neither acknowledged nor listed as refused or conflicted.
        var lostWrites: Int { acked.lostOtherwise + acked.missingRows + writes.lost }
        var divergedDevices: Int { devices.count - devices.converged }

        mutating func note(_ example: String) { if examples.count < 12 { examples.append(example) } }

        func print() {
            let ok = lostWrites == 0 && memberships.differing == 0 && users.wrongView == 0 && errors.isEmpty
            Swift.print(
                """
                CHECK shared lists: \(ok ? "ok" : "FAILED") — \(lists) lists, \(memberships.server) memberships on the server, \(memberships.differing) differing from the plan;
                  \(users.wrongView) of \(users.count) users served rows other than exactly their own and their lists' (server, as administrator);
                  \(writes.count) shared writes made (\(writes.new) new tasks, \(writes.count - writes.new) edits), \(skipped) found nothing to write,
                  local write errors: \(errors.isEmpty ? "none" : errors.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: "; "));
                  of the writes: \(writes.acked) acknowledged, \(writes.listed) on their device's rejected or conflicted list,
                  \(writes.replaced) replaced by a later write of the same device before it was sent, \(writes.lost) lost (none of these);
                  acknowledged writes of shared rows: \(acked.rows) row writes, \(acked.columns) column values compared, \(acked.lostToLaterWrite) overwritten
                  by a write acknowledged later (any user's), \(acked.missingRows) rows missing, \(acked.lostOtherwise) values lost otherwise,
                  \(acked.notTaken) upserts left out of their answer (the server kept its copy), on their device's rejected list
                CHECK shared convergence: \(divergedDevices == 0 ? "ok" : "FAILED") — \(devices.converged) of \(devices.count) devices hold exactly their lists' server rows
                  and list exactly their user's lists with their roles; \(devices.rows) shared rows compared, \(devices.mismatchedRows) differ, \(devices.wrongScopes) devices list other lists or roles
                """)
            for failure in ackedLost { Swift.print("  lost (acknowledged): \(failure)") }
            for example in examples { Swift.print("  \(example)") }
        }
    }

    static func verifyShared(
        _ devices: [Device], shared: SharedWrites, acks: [Acknowledged], serverRows: [UUID: [String: [String: ColumnValues]]],
        lists: [String: DeviceLists], differing: Set<String>, database: BenchDatabase
    ) async throws -> SharedCheck {
        var check = SharedCheck()
        let plan = shared.scopes
        let planned = Set(plan.lists.map { $0.uuidString.lowercased() })
        check.lists = plan.lists.count
        // The memberships as the server holds them, by list: the plan's for the shared lists.
        var members: [String: [String: String]] = [:]
        for row in try database.admin.execute(
            "select scope_id::text, user_id::text, role::text from public.task_lists_members where deleted_ms is null"
        ).rows {
            members[row[0] ?? "", default: [:]][row[1] ?? ""] = row[2] ?? ""
        }
        for list in plan.lists {
            let id = list.uuidString.lowercased()
            var expected: [String: String] = [:]
            for (user, memberships) in plan.memberships {
                for membership in memberships where membership.list == list {
                    expected[user.uuidString.lowercased()] = membership.role.rawValue
                }
            }
            let held = members[id] ?? [:]
            check.memberships.server += held.count
            for user in Set(expected.keys).union(held.keys) where expected[user] != held[user] {
                check.memberships.differing += 1
                check.note("membership differs: list \(id) user \(user): plan \(expected[user] ?? "none"), server \(held[user] ?? "none")")
            }
        }
        // Every row each user may read: their own rows (no scope) and the rows of their lists.
        var readable: [String: [String: Set<String>]] = [:]
        var sharedKeys: Set<String> = []
        for table in GeneratedSchema.tables {
            let scope = table.scope.map { "\($0.column)::text" } ?? "null"
            for row in try database.admin.execute("select id::text, user_id::text, \(scope) from public.\(table.name)").rows {
                let id = row[0] ?? ""
                guard let scopeID = row[2] else {
                    readable[row[1] ?? "", default: [:]][table.name, default: []].insert(id)
                    continue
                }
                if planned.contains(scopeID) { sharedKeys.insert("\(table.name)/\(id)") }
                for member in (members[scopeID] ?? [:]).keys { readable[member, default: [:]][table.name, default: []].insert(id) }
            }
        }
        var wrongView: Set<UUID> = []
        for user in Set(devices.map(\.user)) {
            check.users.count += 1
            for table in GeneratedSchema.tables {
                let served = Set((serverRows[user]?[table.name] ?? [:]).keys)
                let expected = readable[user.uuidString.lowercased()]?[table.name] ?? []
                guard served != expected else { continue }
                wrongView.insert(user)
                check.note(
                    "\(user) is served \(table.name) rows \(served.subtracting(expected).sorted().prefix(3)) beyond theirs,"
                        + " misses \(expected.subtracting(served).sorted().prefix(3))")
            }
        }
        check.users.wrongView = wrongView.count
        var acknowledged = Check()
        checkAcknowledged(
            acks.filter { sharedKeys.contains("\($0.table)/\($0.id)") }, against: serverRows, refused: refusedUpserts(lists),
            into: &acknowledged)
        (check.acked, check.ackedLost) = (acknowledged.acked, acknowledged.lost)
        for device in devices {
            try await checkSharedRows(
                of: device, plan: plan, planned: planned, sharedKeys: sharedKeys, server: serverRows[device.user] ?? [:],
                otherwiseSame: !wrongView.contains(device.user) && !differing.contains(device.name), into: &check)
        }
        account(shared.writes, acks: acks, lists: lists, into: &check)
        check.skipped = shared.skipped
        check.errors = shared.errors
        return check
    }

    /// Each shared write is acknowledged (a request that came back carried its value), on its
    /// device's rejected or conflicted list, or replaced before it was sent by a later write of
    /// the same device to the same column that is itself accounted for; any other is lost.
    static func account(
        _ writes: [SharedWrite], acks: [Acknowledged], lists: [String: DeviceLists],
        into check: inout SharedCheck
    ) {
        var carried: Set<String> = []
        for ack in acks where ack.table == TaskItem.table.name {
            for column in ["title", "notes"] {
                if let value = ack.values[column]?.text { carried.insert("\(ack.device) \(ack.id) \(column) \(value)") }
            }
        }
        var listed: Set<String> = []
        for (device, entries) in lists {
            let all =
                entries.rejected.map { ($0.table, $0.rowID, $0.operation, $0.body) }
                + entries.conflicted.map { ($0.table, $0.rowID, $0.operation, $0.body) }
            for (table, rowID, operation, body) in all where table == TaskItem.table.name {
                let row = rowID.uuidString.lowercased()
                // A refused new row's entry stands for every write of the row (its values wait in the table).
                if operation == .upsert { listed.insert("\(device) \(row) *") }
                for column in ["title", "notes"] {
                    if let value = body?[column]?.text { listed.insert("\(device) \(row) \(column) \(value)") }
                }
            }
        }
        var accountedLater: Set<String> = []
        for write in writes.reversed() {
            check.writes.count += 1
            if write.isNew { check.writes.new += 1 }
            let key = "\(write.device) \(write.row) \(write.column)"
            if carried.contains("\(key) \(write.value)") {
                check.writes.acked += 1
            } else if listed.contains("\(key) \(write.value)") || listed.contains("\(write.device) \(write.row) *") {
                check.writes.listed += 1
            } else if accountedLater.contains(key) {
                check.writes.replaced += 1
            } else {
                check.writes.lost += 1
                check.note(
                    "lost: \(write.device) wrote tasks.\(write.column) of \(write.row) \"\(write.value)\": never acknowledged nor listed")
                continue
            }
            accountedLater.insert(key)
        }
    }

    /// The device's rows of the shared lists are the server's (every column), and its scopes
    /// are the lists its user belongs to by the plan, with their roles, none still arriving.
    /// `otherwiseSame` is false when the server serves its user other rows than theirs, or a
    /// parked row of the device's held more than its version apart from the server's.
    static func checkSharedRows(
        of device: Device, plan: FleetScopes, planned: Set<String>, sharedKeys: Set<String>, server: [String: [String: ColumnValues]],
        otherwiseSame: Bool, into check: inout SharedCheck
    ) async throws {
        check.devices.count += 1
        var same = otherwiseSame
        for table in GeneratedSchema.tables {
            guard let scope = table.scope else { continue }
            let local = try await device.store.read { reader in try reader.rowValues(of: table.name) }
            let mine = Dictionary(
                local.filter { planned.contains($0[scope.column]?.text ?? "") }.map { (key($0), $0) },
                uniquingKeysWith: { first, _ in first })
            let theirs = (server[table.name] ?? [:]).filter { sharedKeys.contains("\(table.name)/\($0.key)") }
            for id in Set(mine.keys).union(theirs.keys) {
                check.devices.rows += 1
                guard mine[id] != theirs[id] else { continue }
                same = false
                check.devices.mismatchedRows += 1
                let columns = table.columnNames.filter { mine[id]?[$0] != theirs[id]?[$0] }
                check.note(
                    "differs: \(device.name) \(table.name) \(id): "
                        + columns.map { "\($0) device \(describe(mine[id]?[$0])) server \(describe(theirs[id]?[$0]))" }.joined(
                            separator: ", "))
            }
        }
        let scopes = try await device.store.read { reader in try reader.sharedScopes() }.filter {
            planned.contains($0.id.uuidString.lowercased())
        }
        let listed = Dictionary(scopes.map { ($0.id, $0.role) }, uniquingKeysWith: { first, _ in first })
        if listed != plan.roles(of: device.user) || scopes.contains(where: \.isArriving) {
            same = false
            check.devices.wrongScopes += 1
            check.note(
                "\(device.name) lists \(scopes.map { "\($0.id) \($0.role)\($0.isArriving ? " arriving" : "")" }), plan \(plan.roles(of: device.user))"
            )
        }
        if same { check.devices.converged += 1 }
    }
}
