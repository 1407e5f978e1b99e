import Foundation
import HopeSchema
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@_spi(Transport) @testable import HopeSync

/// Three users, two devices each, share task lists on the in-memory server (the project's
/// schema: task_lists are scopes, tasks name theirs in list_id): they create lists and tasks,
/// share lists with each other as owners, editors and viewers, change roles, remove members,
/// leave, delete lists, edit and move tasks between lists and their own rows, through offline
/// periods, lost answers and 5xx answers. Once the faults stop and every device has synced, each
/// device holds exactly the rows of its user's own stream and current scopes, as the server holds
/// them, and lists exactly the user's scopes with their roles; nothing waits to be pushed; and
/// no write was lost: each is on the server (or replaced there by a later one) or on its device's
/// conflicted or rejected list (SharingWriteLedger).
/// Runs: SYNC_RANDOM_RUNS (default 60); seed offset: SYNC_RANDOM_SEED.
@Suite struct SharingRandomTests {
    @Test func everyDeviceEndsWithItsUsersOwnRowsAndCurrentScopes() async throws {
        try await SeededRuns.recordFailures(defaultRuns: 60) { seed in try await SharingRun(seed: seed).run() }
    }
}

private struct SharingRun {
    let seed: UInt64
    let users: [UUID]
    let server: InMemoryServer
    let serverClock = ManualClock()
    static let shared = ["task_lists", "tasks", "task_lists_members"]

    init(seed: UInt64) {
        self.seed = seed
        var generator = SeededGenerator(seed: seed)
        users = (0..<3).map { _ in generator.uuid() }
        server = InMemoryServer(tables: GeneratedSchema.tables, clock: serverClock.read)
    }

    func run() async throws -> [String] {
        var random = SeededGenerator(seed: seed &* 6_151)
        var devices: [TestDevice] = []
        for (index, user) in users.enumerated() {
            for name in ["phone", "desk"] {
                devices.append(
                    try TestDevice(
                        "u\(index)-\(name)", user: user, transport: server, schema: GeneratedSchema.app,
                        clock: ManualClock(serverClock.read())))
            }
        }
        defer {
            for device in devices {
                device.store.close()
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: device.path + suffix) }
            }
        }
        let verbose = ProcessInfo.processInfo.environment["SYNC_RANDOM_VERBOSE"] != nil
        var ledger = SharingWriteLedger()
        let stores = devices.map { (id: $0.deviceID, store: $0.store) }
        for step in 0..<60 {
            let device = devices[random.below(devices.count)]
            let action = random.below(100)
            if verbose { print("step \(step) \(device.deviceID) action \(action)") }
            switch action {
            case 0..<8: ledger.record(try await createList(on: device, step: step, &random), verbose: verbose)
            case 8..<30: ledger.record(try await writeTask(on: device, step: step, &random), verbose: verbose)
            case 30..<40: await changeMembership(from: device, &random)
            case 40..<43: ledger.record(try await deleteList(on: device, step: step, &random), verbose: verbose)
            case 43..<70:
                do { try await device.sync() } catch { if verbose { print("  sync failed: \(error)") } }
            case 70..<78: await device.engine.setNetworkEnabled(!(await device.engine.isNetworkEnabled))
            case 78..<84:
                await server.failNextRequests(
                    1 + random.below(2),
                    with: SyncError(.server, "down", serverError: ServerError(status: 503, code: "PGRST001", message: "down")))
            case 84..<90: await server.loseNextAnswers(1)
            default:
                let elapsed = Int64(random.below(2_000))
                serverClock.advance(elapsed)
                for device in devices { device.clock.advance(elapsed) }
            }
            try ledger.observe(await serverRows(), stores)
        }
        await server.clearFaults()
        for device in devices { await device.engine.setNetworkEnabled(true) }
        // Refused writes are dismissed (a viewer's write the device could not refuse, a write to
        // a list that ended); then every device syncs until nothing moves.
        for _ in 0..<3 {
            for device in devices {
                do { try await device.sync() } catch { if verbose { print("  final sync \(device.deviceID) failed: \(error)") } }
                try ledger.observe(await serverRows(), stores)
                for entry in try device.store.rejectedMutations() { try device.store.dismissRejectedMutation(id: entry.id) }
                for entry in try device.store.conflictedMutations() {
                    try device.store.resolveConflictedMutation(id: entry.id, resolution: .keepServer)
                }
            }
        }
        for _ in 0..<2 {
            for device in devices {
                try await device.sync()
                try ledger.observe(await serverRows(), stores)
            }
        }
        var problems = ledger.problems(finalServer: await serverRows())
        for device in devices { problems += try await differences(device) }
        return problems
    }

    // MARK: Actions

    private func createList(on device: TestDevice, step: Int, _ random: inout SeededGenerator) async throws -> SharingWriteLedger.Write {
        let list = TaskList(id: random.uuid(), name: "list \(step)")
        try await device.store.write { try $0.save(list) }
        return .init(device: device.deviceID, table: "task_lists", row: list.id.lowercasedString, value: list.name, step: step)
    }

    /// A new task (own, or in a list the device has), or an edit, move or delete of one it has;
    /// every new title is the step's. A viewer's device refuses it (`.notAllowed`): then nothing
    /// was written.
    private func writeTask(on device: TestDevice, step: Int, _ random: inout SeededGenerator) async throws -> SharingWriteLedger.Write? {
        let lists = try await device.store.read { try $0.fetchAll(TaskList.self) }.map(\.id)
        let tasks = try await device.store.read { try $0.fetchAll(TaskItem.self) }
        let list: UUID? = lists.isEmpty || random.below(3) == 0 ? nil : lists[random.below(lists.count)]
        let title = "task \(step)"
        let id = random.uuid()
        let pick = random.below(100)
        let row = tasks.isEmpty || pick < 40 ? id : tasks[pick % tasks.count].id
        do {
            try await device.store.write { writer in
                if tasks.isEmpty || pick < 40 {
                    try writer.save(TaskItem(id: id, title: title, listId: list))
                } else if pick < 75 {
                    try writer.update(TaskItem.self, id: row) { $0.title = title }
                } else if pick < 90 {
                    try writer.update(TaskItem.self, id: row) {
                        $0.listId = list
                        $0.title = title
                    }
                } else {
                    try writer.delete(TaskItem.self, id: row)
                }
            }
        } catch let error as SyncError where error.code == .notAllowed {
            // A viewer's device refuses at the save.
            return nil
        }
        return .init(
            device: device.deviceID, table: "tasks", row: row.lowercasedString, value: pick < 90 || tasks.isEmpty ? title : nil, step: step)
    }

    /// An owner shares a list with another user, changes a role or removes a member; or a
    /// member leaves. Any of them may be refused (not an owner any more, the last owner).
    private func changeMembership(from device: TestDevice, _ random: inout SeededGenerator) async {
        guard let scopes = try? device.store.sharedScopes(), !scopes.isEmpty else { return }
        let scope = scopes[random.below(scopes.count)]
        guard let list = try? await device.store.read({ try $0.fetchOne(TaskList.self, id: scope.id) }) else { return }
        let other = users.filter { $0 != device.user }[random.below(users.count - 1)]
        let roles: [MemberRole] = [.owner, .editor, .viewer]
        let verbose = ProcessInfo.processInfo.environment["SYNC_RANDOM_VERBOSE"] != nil
        do {
            switch random.below(10) {
            case 0..<6:
                let role = roles[random.below(roles.count)]
                if verbose { print("  share \(list.id) with \(other) as \(role)") }
                try await device.engine.share(list, with: other, as: role)
            case 6..<8:
                if verbose { print("  remove \(other) from \(list.id)") }
                try await device.engine.removeMember(other, from: list)
            default:
                if verbose { print("  leave \(list.id)") }
                try await device.engine.leave(list)
            }
        } catch {
            if verbose { print("  refused: \(error)") }
        }
    }

    private func deleteList(on device: TestDevice, step: Int, _ random: inout SeededGenerator) async throws -> SharingWriteLedger.Write? {
        let lists = try await device.store.read { try $0.fetchAll(TaskList.self) }
        guard !lists.isEmpty else { return nil }
        let list = lists[random.below(lists.count)]
        do {
            try await device.store.write { try $0.delete(TaskList.self, id: list.id) }
        } catch let error as SyncError where error.code == .notAllowed {
            return nil
        }
        return .init(device: device.deviceID, table: "task_lists", row: list.id.lowercasedString, value: nil, step: step)
    }

    /// The server's rows of the tables the ledger follows.
    private func serverRows() async -> [String: [String: ColumnValues]] {
        var rows: [String: [String: ColumnValues]] = [:]
        for table in SharingWriteLedger.valueColumn.keys { rows[table] = await server.rows(of: table) }
        return rows
    }

    // MARK: The oracle

    /// The device's shared tables hold exactly what its user reads on the server (own rows and
    /// the rows of the scopes they belong to now), its scopes list is theirs, and nothing waits.
    private func differences(_ device: TestDevice) async throws -> [String] {
        let user = device.user.uuidString.lowercased()
        let memberships = await server.rows(of: "task_lists_members").values.filter { $0["deleted_ms"] == .null }
        var roles: [String: String] = [:]
        for row in memberships where row["user_id"]?.text == user {
            roles[row["scope_id"]?.text ?? ""] = row["role"]?.text
        }
        var result: [String] = []
        for name in Self.shared {
            let table = try #require(GeneratedSchema.app.table(named: name))
            let column = table.scope?.column ?? ""
            let visible = await server.rows(of: name).filter { _, row in
                if let scope = row[column]?.text { return roles[scope] != nil }
                return row["user_id"]?.text == user
            }
            let local = try localRows(device, table)
            for key in Set(local.keys).union(visible.keys) where local[key] != visible[key] {
                result.append(
                    "\(device.deviceID) \(name) \(key): local \(String(describing: local[key])) server \(String(describing: visible[key]))")
            }
        }
        let listed = Dictionary(
            uniqueKeysWithValues: try device.store.sharedScopes().map { ($0.id.uuidString.lowercased(), $0.role.rawValue) })
        if listed != roles { result.append("\(device.deviceID) scopes: local \(listed) server \(roles)") }
        let waiting = try device.dirtyCount()
        if waiting > 0 { result.append("\(device.deviceID): \(waiting) rows still wait to be pushed") }
        return result
    }
}
