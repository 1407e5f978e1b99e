import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncTestSupport

/// The fleet's shared task lists (`FLEET_SCOPES`): each owned by one user and shared by its owner
/// with a few others, as the app's share request does, so that each user belongs to 2-4 lists
/// (mostly as an editor, a fifth as a viewer). Deterministic from the seed.
struct FleetScopes: Sendable {
    struct Membership: Sendable, Hashable {
        let list: UUID
        let role: MemberRole
    }

    static let tasksPerList = 3
    /// One write in this many is a shared write, for a user with a list they may write.
    static let sharedWriteEvery: UInt64 = 4

    let lists: [UUID]
    let owners: [UUID: UUID]
    /// Every user's lists (as owner, editor or viewer), in the order they joined them.
    let memberships: [UUID: [Membership]]

    init(users: [UUID], scopes: Int, seed: UInt64) {
        var random = SeededGenerator(seed: seed &* 2_654_435_761 &+ 33)
        lists = (0..<scopes).map { UUID(uuidString: String(format: "5c09e000-0000-4000-8000-%012d", $0))! }
        var owners: [UUID: UUID] = [:]
        var memberships: [UUID: [Membership]] = [:]
        // Owners spread over the users; then each user joins random lists until they are in 2-4.
        for (index, list) in lists.enumerated() {
            let owner = users[index * users.count / max(1, scopes) % users.count]
            owners[list] = owner
            memberships[owner, default: []].append(Membership(list: list, role: .owner))
        }
        for user in users {
            let target = min(scopes, 2 + Int(random.next() % 3))
            while memberships[user, default: []].count < target {
                let list = lists[Int(random.next() % UInt64(scopes))]
                guard !memberships[user, default: []].contains(where: { $0.list == list }) else { continue }
                let role: MemberRole = random.next() % 5 == 0 ? .viewer : .editor
                memberships[user, default: []].append(Membership(list: list, role: role))
            }
        }
        self.owners = owners
        self.memberships = memberships
    }

    /// The lists `user` may write (owner or editor): a viewer's device never writes a list's rows.
    func writable(by user: UUID) -> [UUID] { (memberships[user] ?? []).filter { $0.role.canWrite }.map(\.list) }

    /// `user`'s role in each list by the plan.
    func roles(of user: UUID) -> [UUID: MemberRole] {
        Dictionary((memberships[user] ?? []).map { ($0.list, $0.role) }, uniquingKeysWith: { first, _ in first })
    }

    /// Each list made by the server for its owner with a few tasks (``ShareBenchmark/load``),
    /// then shared by the owner with each member (``ShareBenchmark/share``: the membership upsert
    /// PostgREST runs, under its policies and the membership trigger's rules).
    func seed(_ database: BenchDatabase) throws {
        for list in lists { try ShareBenchmark.load(tasks: Self.tasksPerList, of: owners[list]!, in: list, database) }
        let client = try ClientConnection(url: database.url)
        for (user, lists) in memberships.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            for membership in lists where membership.role != .owner {
                try ShareBenchmark.share(
                    membership.list, with: user, role: membership.role.rawValue, by: owners[membership.list]!, client)
            }
        }
    }

    var summary: String {
        let counts = memberships.values.map(\.count).sorted()
        let all = memberships.values.flatMap { $0 }
        let viewers = all.filter { $0.role == .viewer }.count
        return "\(lists.count) shared task lists (\(Self.tasksPerList) tasks each to start), \(all.count) memberships"
            + " (\(lists.count) owners, \(all.count - lists.count - viewers) editors, \(viewers) viewers); lists per user"
            + " \(counts.first ?? 0)-\(counts.last ?? 0); 1 write in \(Self.sharedWriteEvery) of a member of a list they may write"
            + " goes to a shared list (7 in 10 edit a task of it, 3 in 10 add one)"
    }
}

/// A write a device made to a task of a shared list: the column it gave a value no other write
/// gives, so that the value names the write wherever it shows up (an acknowledged request, the
/// server's row, a device's rejected or conflicted list).
struct SharedWrite: Sendable {
    let device: String
    let row: String
    let column: String
    let value: String
    let isNew: Bool
}

/// What the devices wrote to shared lists, in the order each device wrote it.
final class SharedWrites: Sendable {
    let scopes: FleetScopes
    private let state = Locked((writes: [SharedWrite](), skipped: 0, errors: [String: Int]()))

    init(scopes: FleetScopes) {
        self.scopes = scopes
    }

    var writes: [SharedWrite] { state.value.writes }
    var skipped: Int { state.value.skipped }
    var errors: [String: Int] { state.value.errors }

    /// One shared write of `device`'s, in one of the lists its user may write: an edit of one of
    /// the list's tasks (its title or notes), or a new task in it. Through the app's store API.
    func write(_ device: FleetBenchmark.Device, lists: [UUID], pick: Int, serial: Int, number: Int) async {
        let list = lists[pick % lists.count]
        let value = "\(device.name) shared \(number)"
        let isNew = pick / lists.count % 10 < 3
        do {
            let write = try await device.store.write { writer -> SharedWrite? in
                // A list the device holds (its first pass brings it), as a screen shows one.
                guard try writer.fetchOne(TaskList.self, id: list) != nil else { return nil }
                if isNew {
                    let task = try writer.save(TaskItem(title: value, listId: list))
                    return SharedWrite(
                        device: device.name, row: task.id.uuidString.lowercased(), column: "title", value: value, isNew: true)
                }
                let tasks = try writer.fetchAll(TaskItem.self, where: "list_id = ?", [.text(list.uuidString.lowercased())])
                guard !tasks.isEmpty else { return nil }
                var task = tasks[pick / lists.count / 10 % tasks.count]
                let column = serial % 2 == 0 ? "title" : "notes"
                if column == "title" { task.title = value } else { task.notes = value }
                _ = try writer.save(task)
                return SharedWrite(device: device.name, row: task.id.uuidString.lowercased(), column: column, value: value, isNew: false)
            }
            state.withLock { state in
                if let write { state.writes.append(write) } else { state.skipped += 1 }
            }
        } catch {
            let code = (error as? SyncError).map { "\($0.code)" } ?? "\(type(of: error))"
            state.withLock { $0.errors["\(isNew ? "newSharedTask" : "editSharedTask") \(code)", default: 0] += 1 }
        }
    }
}
