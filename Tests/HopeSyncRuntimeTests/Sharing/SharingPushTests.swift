import Foundation
import HopeSchema
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@_spi(Transport) @testable import HopeSync

/// Pushes of a shared schema (the project's: tasks in task lists) on the in-memory server: a
/// scope's rows wait for their scope, and a version table's whole row never undoes what another
/// write did after it.
@Suite struct SharingPushTests {
    let user = UUID()
    let server = InMemoryServer(tables: GeneratedSchema.tables)

    func device(_ name: String, transport: (any SyncTransport)? = nil) throws -> TestDevice {
        try TestDevice(name, user: user, transport: transport ?? server, schema: GeneratedSchema.app)
    }

    /// The new list's push fails with a 503: its task is not sent in that pass (the server
    /// would refuse it for the list's sake and the task would go to the rejected list); both
    /// go in the next one.
    @Test func aTaskWaitsForItsListWhoseNewRowFailed() async throws {
        let phone = try device("phone")
        defer { phone.store.close() }
        let list = TaskList(id: UUID(), name: "Groceries")
        try await phone.store.write { writer in
            try writer.save(list)
            try writer.save(TaskItem(id: UUID(), title: "Milk", listId: list.id))
        }
        await server.failNextRequests(
            1, with: SyncError(.server, "down", serverError: ServerError(status: 503, code: "PGRST001", message: "down")))
        await #expect(throws: SyncError.self) { try await phone.sync() }
        #expect(try phone.store.rejectedMutations().isEmpty)
        #expect(await server.rows(of: "tasks").isEmpty)
        try await phone.sync()
        let (tasks, lists) = (await server.rows(of: "tasks"), await server.rows(of: "task_lists"))
        #expect(tasks.count == 1 && lists.count == 1)
        #expect(try phone.store.rejectedMutations().isEmpty && phone.dirtyCount() == 0)
    }

    /// An edit made while a new row's push is out keeps the row waiting at the version the
    /// answer gave: pushed again whole, it is taken (it names the stored version).
    @Test func anEditDuringTheFirstPushGoesAtTheVersionItsAnswerGave() async throws {
        let editing = EditingDuringPush(forwardee: server)
        let phone = try device("phone", transport: editing)
        defer { phone.store.close() }
        let id = UUID()
        try await phone.store.write { try $0.save(TaskItem(id: id, title: "Milk")) }
        let store = phone.store
        editing.edit = {
            _ = try await store.write { writer in try writer.update(TaskItem.self, id: id) { task in task.title = "Oat milk" } }
        }
        try await phone.sync()
        try await phone.sync()
        let held = await server.rows(of: "tasks")[id.lowercasedString]
        #expect(held?["title"] == .text("Oat milk"))
        #expect(try phone.store.rejectedMutations().isEmpty && phone.dirtyCount() == 0)
    }
}

/// Runs `edit` once, after the server took a push and before its answer reaches the device.
private final class EditingDuringPush: ForwardingTransport, @unchecked Sendable {
    let forwardee: any SyncTransport
    var edit: (@Sendable () async throws -> Void)?

    init(forwardee: any SyncTransport) {
        self.forwardee = forwardee
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        let answer = try await forwardee.upsert(rows, into: table, as: user)
        if let edit {
            self.edit = nil
            do { try await edit() } catch { Issue.record("the edit failed: \(error)") }
        }
        return answer
    }
}
