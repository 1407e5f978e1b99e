import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSharingSchema
import Testing

@_spi(Transport) @testable import HopeSync

/// Several users' devices syncing shared task lists through the generated SQL on PostgreSQL
/// (Tests/Fixtures/Sharing: task_lists are scopes, tasks name theirs in list_id, task_photos
/// follow their task). Memberships are written as PostgREST writes the membership table.
@Suite struct SharingSyncTests {
    static let sharingSQL = TestServer.packageRoot.appendingPathComponent("Tests/Fixtures/Sharing/Generated/supabase/schema.sql")
    let server: TestServer
    let owner = UUID()
    let editor = UUID()
    let viewer = UUID()

    init() throws {
        server = try TestServer(schemaSQL: Self.sharingSQL)
    }

    private func device(_ name: String, _ user: UUID, pageSize: Int? = nil) throws -> Device {
        var configuration = Device.configuration
        if let pageSize { configuration.pageSize = pageSize }
        return try Device(name, user: user, transport: server.transport, configuration: configuration, schema: GeneratedSchema.app)
    }

    private func share(_ list: UUID, with member: UUID, as role: String, by user: UUID? = nil) throws {
        try server.database.connect().request(asUser: user ?? owner) {
            try $0.execute(
                """
                insert into public.task_lists_members (scope_id, user_id, role) values ($1, $2, $3)
                on conflict (scope_id, user_id) do update set role = excluded.role, deleted_ms = null
                """, [list.uuidString.lowercased(), member.uuidString.lowercased(), role])
        }
    }

    private func remove(_ member: UUID, from list: UUID, by user: UUID? = nil) throws {
        try server.database.connect().request(asUser: user ?? owner) {
            try $0.execute(
                "update public.task_lists_members set deleted_ms = 1 where scope_id = $1 and user_id = $2",
                [list.uuidString.lowercased(), member.uuidString.lowercased()])
        }
    }

    private func titles(_ device: Device) throws -> Set<String> {
        Set(try device.store.read { try $0.fetchAll(TaskItem.self) }.map(\.title))
    }

    /// The scopes the device's last pull listed, with the user's role in each.
    private func scopes(_ device: Device) throws -> [String: String] {
        try device.store.knownScopes().mapValues(\.role.rawValue)
    }

    /// An owner's list with a task, shared with an editor: the editor's devices get both and the
    /// memberships; the editor's edit reaches the owner; the owner's own task never leaves them.
    @Test func aSharedListsRowsReachEveryMembersDevicesAndTheirEditsComeBack() async throws {
        let ownerPhone = try device("owner-phone", owner)
        let list = TaskList(name: "Groceries")
        try await ownerPhone.store.write { writer in
            try writer.save(list)
            try writer.save(TaskItem(title: "Milk", listId: list.id))
            try writer.save(TaskItem(title: "Own errand"))
        }
        try await ownerPhone.engine.share(list, with: editor, as: .editor)

        let editorPhone = try device("editor-phone", editor)
        let editorDesk = try device("editor-desk", editor)
        try await editorPhone.sync()
        #expect(try titles(editorPhone) == ["Milk"])
        #expect(try editorPhone.store.sharedScopes() == [SharedScope(id: list.id, table: "task_lists", role: .editor, isArriving: false)])
        #expect(try editorPhone.store.members(of: list).map(\.role) == [.owner, .editor])
        #expect(try await editorPhone.store.read { try $0.fetchAll(TaskList.self) }.map(\.name) == ["Groceries"])
        #expect(try await editorPhone.store.read { try $0.fetchCount(TaskListMember.self) } == 2)

        let milk = try #require(try await editorPhone.store.read { try $0.fetchAll(TaskItem.self) }.first)
        try await editorPhone.store.write { try $0.update(TaskItem.self, id: milk.id) { $0.done = true } }
        try await editorPhone.store.write { try $0.save(TaskItem(title: "Eggs", listId: list.id)) }
        try await editorPhone.sync()
        try await ownerPhone.sync()
        try await editorDesk.sync()
        #expect(try titles(ownerPhone) == ["Milk", "Eggs", "Own errand"])
        #expect(try await ownerPhone.store.read { try $0.fetchOne(TaskItem.self, id: milk.id) }?.done == true)
        #expect(try titles(editorDesk) == ["Milk", "Eggs"])
        #expect(try scopes(ownerPhone) == [list.id.uuidString.lowercased(): "owner"])
    }

    /// A viewer's device refuses a local edit of the list's rows at the save, naming the list.
    @Test func aViewersDeviceRefusesAnEditAtTheSave() async throws {
        let ownerPhone = try device("owner-phone", owner)
        let list = TaskList(name: "Chores")
        let task = TaskItem(title: "Dishes", listId: list.id)
        try await ownerPhone.store.write { writer in
            try writer.save(list)
            try writer.save(task)
        }
        try await ownerPhone.sync()
        try share(list.id, with: viewer, as: "viewer")
        let viewerPhone = try device("viewer-phone", viewer)
        try await viewerPhone.sync()
        #expect(try titles(viewerPhone) == ["Dishes"])
        for edit in [
            { (writer: StoreWriter) throws in try writer.update(TaskItem.self, id: task.id) { $0.done = true } as TaskItem? },
            { writer in try writer.save(TaskItem(title: "Sneaked in", listId: list.id)) },
            { writer in try writer.delete(TaskItem.self, id: task.id) ? task : nil },
        ] as [@Sendable (StoreWriter) throws -> TaskItem?] {
            let error = await #expect(throws: SyncError.self) { try await viewerPhone.store.write { _ = try edit($0) } }
            #expect(error?.code == .notAllowed)
            #expect(error?.message.contains(list.id.uuidString.lowercased()) == true)
        }
        #expect(try viewerPhone.dirtyCount() == 0)
        // Their own rows stay theirs to write.
        try await viewerPhone.store.write { try $0.save(TaskItem(title: "Mine")) }
        try await viewerPhone.sync()
        #expect(try titles(viewerPhone) == ["Dishes", "Mine"])
    }

    /// A member removed while offline with an edit waiting: at the next pull the list's rows go
    /// from both their devices, and the edit the server never accepted is on the rejected list,
    /// saying access ended. The owner's copy keeps what they had.
    @Test func aRemovedMembersDevicesDropTheListAndKeepTheirUnsentEditOnTheRejectedList() async throws {
        let ownerPhone = try device("owner-phone", owner)
        let list = TaskList(name: "Trip")
        let task = TaskItem(title: "Passports", listId: list.id)
        try await ownerPhone.store.write { writer in
            try writer.save(list)
            try writer.save(task)
        }
        try await ownerPhone.sync()
        try share(list.id, with: editor, as: "editor")
        let editorPhone = try device("editor-phone", editor)
        let editorDesk = try device("editor-desk", editor)
        try await editorPhone.sync()
        try await editorDesk.sync()
        #expect(try titles(editorDesk) == ["Passports"])

        try await editorPhone.store.write { try $0.update(TaskItem.self, id: task.id) { $0.notes = "renew first" } }
        try await ownerPhone.engine.removeMember(editor, from: list)
        // The phone's pass pushes first: the server refuses the write (no longer a member).
        try await editorPhone.sync()
        try await editorDesk.sync()
        for device in [editorPhone, editorDesk] {
            #expect(try titles(device).isEmpty, "\(device.name)")
            #expect(try await device.store.read { try $0.fetchCount(TaskList.self) } == 0)
            #expect(try await device.store.read { try $0.fetchCount(TaskListMember.self) } == 0)
            #expect(try scopes(device).isEmpty)
        }
        let rejected = try editorPhone.store.rejectedMutations()
        #expect(rejected.contains { $0.rowID == task.id }, "the unsent edit is kept where the user can copy it out")
        try await ownerPhone.sync()
        #expect(try await ownerPhone.store.read { try $0.fetchOne(TaskItem.self, id: task.id) }?.notes == nil)
    }

    /// The edit waits on the device (never pushed) when access ends: the pull drops the row and
    /// the edit goes to the rejected list with a reason that says so.
    @Test func anEditNeverPushedGoesToTheRejectedListWhenAccessEnds() async throws {
        let ownerPhone = try device("owner-phone", owner)
        let list = TaskList(name: "Garden")
        let task = TaskItem(title: "Water", listId: list.id)
        try await ownerPhone.store.write { writer in
            try writer.save(list)
            try writer.save(task)
        }
        try await ownerPhone.sync()
        try share(list.id, with: editor, as: "editor")
        let editorPhone = try device("editor-phone", editor)
        try await editorPhone.sync()
        try await editorPhone.store.write { try $0.save(TaskItem(title: "Weed", listId: list.id)) }
        try remove(editor, from: list.id)
        // A pull alone, before any push (as a pass whose push failed would go on to pull).
        let puller = TablesPuller(
            store: editorPhone.store, transport: server.transport, credentials: Credentials(editor), pageSize: 100, lookback: nil,
            function: "sync_pull")
        var report = SyncReport()
        #expect(try await puller.pull(into: &report).isEmpty)
        #expect(try titles(editorPhone).isEmpty)
        let rejected = try editorPhone.store.rejectedMutations()
        #expect(rejected.count == 1)
        #expect(rejected.first?.message.contains("ended") == true)
        #expect(rejected.first?.body?["title"] == .text("Weed"))
    }

    /// A task moved out of the list into its author's own rows leaves the other member's device
    /// (an exit), and one moved back in returns.
    @Test func aRowMovedOutOfTheListLeavesTheOtherMembersDevices() async throws {
        let ownerPhone = try device("owner-phone", owner)
        let list = TaskList(name: "Work")
        let task = TaskItem(title: "Report", listId: list.id)
        try await ownerPhone.store.write { writer in
            try writer.save(list)
            try writer.save(task)
        }
        try await ownerPhone.sync()
        try share(list.id, with: editor, as: "editor")
        let editorPhone = try device("editor-phone", editor)
        try await editorPhone.sync()
        #expect(try titles(editorPhone) == ["Report"])
        try await ownerPhone.store.write { try $0.update(TaskItem.self, id: task.id) { $0.listId = nil } }
        try await ownerPhone.sync()
        try await editorPhone.sync()
        #expect(try titles(editorPhone).isEmpty)
        #expect(try titles(ownerPhone) == ["Report"])
        try await ownerPhone.store.write { try $0.update(TaskItem.self, id: task.id) { $0.listId = list.id } }
        try await ownerPhone.sync()
        try await editorPhone.sync()
        #expect(try titles(editorPhone) == ["Report"])
    }

    /// A member joining a list of many rows gets them all in pages, at their next pull, and the
    /// list says it is arriving until the last page is in.
    @Test func joiningAListReadsEveryOlderRowInPages() async throws {
        let ownerPhone = try device("owner-phone", owner)
        let list = TaskList(name: "Library")
        try await ownerPhone.store.write { writer in
            try writer.save(list)
            for index in 0..<45 { try writer.save(TaskItem(title: "Book \(index)", listId: list.id)) }
        }
        try await ownerPhone.sync()
        let editorPhone = try device("editor-phone", editor, pageSize: 10)
        try await editorPhone.store.write { try $0.save(TaskItem(title: "Own note")) }
        try await editorPhone.sync()
        try share(list.id, with: editor, as: "editor")
        try await editorPhone.sync()
        #expect(try titles(editorPhone).count == 46)
        #expect(try editorPhone.store.knownScopes().values.map(\.isArriving) == [false])
        // An idle pass after the join is one request that changes nothing.
        let report = try await editorPhone.sync()
        #expect(report.pulled == 0)
    }

    /// Deleting a list (owners) soft-deletes its rows for everyone and ends every membership: the
    /// members' devices drop it.
    @Test func deletingAListRemovesItFromEveryMembersDevices() async throws {
        let ownerPhone = try device("owner-phone", owner)
        let list = TaskList(name: "Old")
        try await ownerPhone.store.write { writer in
            try writer.save(list)
            try writer.save(TaskItem(title: "Stale", listId: list.id))
        }
        try await ownerPhone.sync()
        try share(list.id, with: editor, as: "editor")
        let editorPhone = try device("editor-phone", editor)
        try await editorPhone.sync()
        #expect(try titles(editorPhone) == ["Stale"])
        try await ownerPhone.store.write { try $0.delete(TaskList.self, id: list.id) }
        try await ownerPhone.sync()
        try await editorPhone.sync()
        #expect(try await editorPhone.store.read { try $0.fetchCount(TaskItem.self, includingDeleted: true) } == 0)
        #expect(try scopes(editorPhone).isEmpty)
        try await ownerPhone.sync()
        #expect(try scopes(ownerPhone).isEmpty)
        #expect(try await ownerPhone.store.read { try $0.fetchCount(TaskItem.self) } == 0)
    }
}
