import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSharingSchema
import Testing

@_spi(Transport) @testable import HopeSync

/// Which user's change a conflict met, on PostgreSQL through the generated SQL of
/// Tests/Fixtures/Sharing: the write trigger keeps `updated_by` (the user of a shared row's last
/// accepted write), a client cannot forge it, and a device's conflicted list and resolver name
/// that user.
@Suite struct SharingChangedByTests {
    let server: TestServer
    let alice = UUID()
    let bob = UUID()

    init() throws {
        server = try TestServer(schemaSQL: SharingSyncTests.sharingSQL)
    }

    private func device(_ name: String, _ user: UUID, resolver: ConflictResolver? = nil) throws -> Device {
        var configuration = Device.configuration
        configuration.resolver = resolver
        return try Device(name, user: user, transport: server.transport, configuration: configuration, schema: GeneratedSchema.app)
    }

    private func lastWriter(of task: UUID) throws -> String? {
        try server.database.connect().execute("select updated_by from public.tasks where id = $1", [task.lowercased]).scalar
    }

    /// Alice and Bob edit the same task of Alice's shared list offline; Bob's lands first. Alice's
    /// guarded write meets Bob's change: her resolver is told it is Bob's, the held write's
    /// conflicted entry names Bob, and her pulled copy names him as its last writer.
    @Test func aGuardedWriteThatMeetsAnotherMembersChangeNamesThem() async throws {
        let asked = AskedConflicts()
        let alicePhone = try device("alice-phone", alice) { conflict in
            asked.record(conflict)
            return .hold
        }
        let bobPhone = try device("bob-phone", bob)
        let list = TaskList(name: "Groceries")
        let task = TaskItem(title: "Milk", listId: list.id)
        try await alicePhone.store.write { writer in
            try writer.save(list)
            try writer.save(task)
        }
        try await alicePhone.sync()
        try await alicePhone.engine.share(list, with: bob, as: .editor)
        try await bobPhone.sync()
        #expect(try lastWriter(of: task.id) == alice.lowercased)
        #expect(try await bobPhone.store.read { try $0.fetchOne(TaskItem.self, id: task.id) }?.updatedBy == alice)

        try await alicePhone.store.write { _ = try $0.update(TaskItem.self, id: task.id) { $0.title = "Oat milk" } }
        try await bobPhone.store.write { _ = try $0.update(TaskItem.self, id: task.id) { $0.title = "Soy milk" } }
        try await bobPhone.sync()
        #expect(try lastWriter(of: task.id) == bob.lowercased)
        let report = try await alicePhone.sync()

        #expect(asked.all.map(\.serverChangedBy) == [bob])
        #expect(asked.all.first?.server?["title"] == .text("Soy milk"))
        #expect(report.conflicted.map(\.serverChangedBy) == [bob])
        let entry = try #require(try alicePhone.store.conflictedMutations().first)
        #expect(entry.rowID == task.id && entry.serverChangedBy == bob)
        #expect(try await alicePhone.store.read { try $0.fetchOne(TaskItem.self, id: task.id) }?.updatedBy == bob)
    }

    /// As PostgREST runs requests: a user's insert or update is stamped with that user whatever it
    /// sends in updated_by; a write of no user's (the service role, the SQL editor) keeps the
    /// last one; a table that is not shared has no such column.
    @Test func theTriggerStampsTheSignedInUserAndNoClientForgesIt() throws {
        let connection = try server.database.connect()
        let list = UUID().lowercased
        let task = UUID().lowercased
        try connection.request(asUser: alice) {
            try $0.execute("insert into public.task_lists (id, user_id, name) values ($1, $2, 'Trip')", [list, alice.lowercased])
            try $0.execute(
                """
                insert into public.task_lists_members (scope_id, user_id, role) values ($1, $2, 'editor')
                """, [list, bob.lowercased])
            try $0.execute(
                "insert into public.tasks (id, user_id, title, list_id, updated_by) values ($1, $2, 'Passports', $3, $4)",
                [task, alice.lowercased, list, bob.lowercased])
        }
        #expect(try lastWriter(of: UUID(uuidString: task)!) == alice.lowercased)

        try connection.request(asUser: bob) {
            try $0.execute("update public.tasks set notes = 'renew', updated_by = $2 where id = $1", [task, alice.lowercased])
        }
        #expect(try lastWriter(of: UUID(uuidString: task)!) == bob.lowercased)
        // An upsert as PostgREST sends it (the proposed insert, then the update) is stamped too.
        try connection.request(asUser: alice) {
            try $0.execute(
                """
                insert into public.tasks (id, user_id, title, list_id, updated_by) values ($1, $2, 'Passports', $3, $4)
                on conflict (id) do update set title = excluded.title, updated_by = excluded.updated_by
                """, [task, alice.lowercased, list, bob.lowercased])
        }
        #expect(try lastWriter(of: UUID(uuidString: task)!) == alice.lowercased)

        try connection.request(as: .serviceRole) {
            try $0.execute("update public.tasks set notes = 'checked', updated_by = null where id = $1", [task])
        }
        #expect(try connection.execute("select notes from public.tasks where id = $1", [task]).scalar == "checked")
        #expect(try lastWriter(of: UUID(uuidString: task)!) == alice.lowercased)

        // Deleting the list soft-deletes its task by the deleter's write.
        try connection.request(asUser: alice) {
            try $0.execute("update public.task_lists set deleted_ms = 1 where id = $1", [list])
        }
        #expect(try connection.execute("select deleted_ms from public.tasks where id = $1", [task]).scalar == "1")
        #expect(try lastWriter(of: UUID(uuidString: task)!) == alice.lowercased)

        let unshared = try connection.execute(
            """
            select table_name from information_schema.columns where table_schema = 'public' and column_name = 'updated_by'
            order by table_name
            """)
        #expect(unshared.rows.map { $0[0] } == ["task_lists", "task_photos", "tasks"])
    }
}

extension UUID {
    fileprivate var lowercased: String { uuidString.lowercased() }
}
