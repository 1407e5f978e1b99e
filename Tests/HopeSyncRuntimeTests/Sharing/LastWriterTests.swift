import Foundation
import HopeSchema
import HopeSyncModel
import HopeSyncTestSupport
import Testing

@_spi(Transport) @testable import HopeSync
@testable import HopeSyncTesting

/// Who made a shared row's last accepted write (`updated_by`, decision 0048's "who changed it"):
/// the in-memory server sets it as the write trigger does, and a conflict names that user on the
/// conflicted list and to the resolver; a table that is not shared names nobody.
@Suite struct LastWriterTests {
    // MARK: The server

    /// Each accepted write stamps its user, whatever the request sent; a write of no user's (a
    /// server's own, as the service role's) keeps the last one; a refused write changes nothing.
    @Test func theServerStampsTheUserOfEachAcceptedWriteAndNeverTheOneSent() async throws {
        let server = InMemoryServer(tables: SharingTables.all)
        let owner = Credentials(userID: UUID(), accessToken: "owner")
        let editor = Credentials(userID: UUID(), accessToken: "editor")
        let forger = UUID()
        let list = UUID()
        try await server.upsert([SharingTables.list(list, name: "groceries", by: owner.userID)], into: SharingTables.lists, as: owner)
        try await server.changeMembership(
            MembershipChange(scopeID: list, userID: editor.userID, role: .editor), in: SharingTables.members, as: owner)
        #expect(await lastWriter(of: list, in: SharingTables.lists, server) == owner.userID)

        // The editor's new task, sent claiming another user: the server names the editor.
        let task = UUID()
        let sent = SharingTables.task(task, title: "milk", list: list, by: editor.userID)
        let forged = ColumnValues(columns: sent.columns + ["updated_by"], values: sent.values + [forger.syncText])
        try await server.upsert([forged], into: SharingTables.tasks, as: editor)
        #expect(await lastWriter(of: task, in: SharingTables.tasks, server) == editor.userID)

        // The owner's guarded edit of it: now the owner's.
        let version = try #require(await server.rows(of: "tasks")[task.lowercasedString]?["updated_at"]?.versionText)
        let edited = try await server.guardedUpdate(
            SharingTables.tasks, id: task, baseVersion: version, set: ColumnValues(["title": .text("oat milk")]), extraFilters: [],
            returning: ["id", "updated_at", "updated_by"], as: owner)
        #expect(edited.first?["updated_by"] == owner.userID.syncText)
        #expect(await lastWriter(of: task, in: SharingTables.tasks, server) == owner.userID)

        // A stale guarded edit lands nowhere and leaves the last writer alone.
        let stale = try await server.guardedUpdate(
            SharingTables.tasks, id: task, baseVersion: version, set: ColumnValues(["title": .text("soy milk")]), extraFilters: [],
            returning: ["id"], as: editor)
        #expect(stale.isEmpty)
        #expect(await lastWriter(of: task, in: SharingTables.tasks, server) == owner.userID)

        // A write of no user's keeps the last one.
        await server.changeRow(in: "tasks", id: task, ColumnValues(["title": .text("rice milk")]))
        #expect(await server.rows(of: "tasks")[task.lowercasedString]?["title"] == .text("rice milk"))
        #expect(await lastWriter(of: task, in: SharingTables.tasks, server) == owner.userID)

        // A pull brings it to every member.
        let page = try await server.pull(SharingTables.tasks, after: 0, limit: 10, as: editor)
        #expect(page.rows.map { $0["updated_by"] } == [owner.userID.syncText])
    }

    private func lastWriter(of id: UUID, in table: TableSchema, _ server: InMemoryServer) async -> UUID? {
        await server.rows(of: table.name)[id.lowercasedString]?["updated_by"]?.text.flatMap(UUID.init(text:))
    }

    // MARK: The devices

    /// Alice and Bob edit the same task of a shared list offline; Bob's lands first. Alice's
    /// replay meets Bob's change: her resolver is told it is Bob's, and the write it holds is
    /// on her conflicted list naming Bob. Her copy, pulled, names Bob as its last writer.
    @Test func aMembersConflictNamesTheUserWhoseChangeItMet() async throws {
        let server = InMemoryServer(tables: GeneratedSchema.tables)
        let (alice, bob) = (UUID(), UUID())
        let asked = ConflictSeen()
        let alicePhone = try device(
            "alice-phone", alice, server,
            resolver: { conflict in
                asked.record(conflict)
                return .hold
            })
        let bobPhone = try device("bob-phone", bob, server)
        let list = TaskList(name: "Groceries")
        let task = TaskItem(title: "Milk", listId: list.id)
        try await alicePhone.store.write { writer in
            try writer.save(list)
            try writer.save(task)
        }
        try await alicePhone.sync()
        try await alicePhone.engine.share(list, with: bob, as: .editor)
        try await bobPhone.sync()
        #expect(try await bobPhone.store.read { try $0.fetchOne(TaskItem.self, id: task.id) }?.updatedBy == alice)

        try await alicePhone.store.write { _ = try $0.update(TaskItem.self, id: task.id) { $0.title = "Oat milk" } }
        try await bobPhone.store.write { _ = try $0.update(TaskItem.self, id: task.id) { $0.title = "Soy milk" } }
        try await bobPhone.sync()
        let report = try await alicePhone.sync()

        #expect(asked.all.map(\.serverChangedBy) == [bob])
        #expect(report.conflicted.map(\.serverChangedBy) == [bob])
        let entry = try #require(try alicePhone.store.conflictedMutations().first)
        #expect(entry.rowID == task.id && entry.serverChangedBy == bob)
        #expect(try await alicePhone.store.read { try $0.fetchOne(TaskItem.self, id: task.id) }?.updatedBy == bob)
        // A local save never writes it: the copy keeps the server's.
        try await alicePhone.store.write { writer in
            var copy = try #require(try writer.fetchOne(TaskItem.self, id: task.id))
            copy.updatedBy = alice
            copy.notes = "by Alice"
            try writer.save(copy)
        }
        #expect(try await alicePhone.store.read { try $0.fetchOne(TaskItem.self, id: task.id) }?.updatedBy == bob)
    }

    /// Alice's new task lands but its answer is lost; Bob edits it; Alice's push of her whole row
    /// again changes nothing (the server's copy is kept), and the values it did not take are on
    /// her rejected list naming Bob, whose write the kept copy holds.
    @Test func aRejectedWholeRowNamesTheUserWhoseCopyTheServerKept() async throws {
        let server = InMemoryServer(tables: GeneratedSchema.tables)
        let (alice, bob) = (UUID(), UUID())
        let alicePhone = try device("alice-phone", alice, server)
        let bobPhone = try device("bob-phone", bob, server)
        let list = TaskList(name: "Groceries")
        try await alicePhone.store.write { try $0.save(list) }
        try await alicePhone.sync()
        try await alicePhone.engine.share(list, with: bob, as: .editor)

        var task = TaskItem(title: "Milk", listId: list.id)
        try await alicePhone.store.write { [task] in try $0.save(task) }
        await server.loseNextAnswers(1)
        _ = try? await alicePhone.sync()
        try await bobPhone.sync()
        try await bobPhone.store.write { [task] in _ = try $0.update(TaskItem.self, id: task.id) { $0.title = "Soy milk" } }
        try await bobPhone.sync()
        task.title = "Oat milk"
        try await alicePhone.store.write { [task] in try $0.save(task) }
        try await alicePhone.sync()

        let rejected = try #require(try alicePhone.store.rejectedMutations().first { $0.rowID == task.id })
        #expect(rejected.body?["title"] == .text("Oat milk"))
        #expect(rejected.changedBy == bob)
        #expect(await server.rows(of: "tasks")[task.id.uuidString.lowercased()]?["title"] == .text("Soy milk"))
    }

    /// The same conflict in a table that is not shared: it has no updated_by, and names nobody.
    @Test func anUnsharedTablesConflictNamesNobody() async throws {
        let server = InMemoryServer(tables: [Note.table])
        let user = UUID()
        let asked = ConflictSeen()
        let phone = try device(
            "phone", user, server, schema: Note.app,
            resolver: { conflict in
                asked.record(conflict)
                return .hold
            })
        let desk = try device("desk", user, server, schema: Note.app)
        let note = Note(text: "first")
        try await phone.store.write { try $0.save(note) }
        try await phone.sync()
        try await desk.sync()
        try await phone.store.write { _ = try $0.update(Note.self, id: note.id) { $0.text = "phone" } }
        try await desk.store.write { _ = try $0.update(Note.self, id: note.id) { $0.text = "desk" } }
        try await desk.sync()
        let report = try await phone.sync()

        #expect(asked.all.count == 1 && asked.all.first?.serverChangedBy == nil)
        #expect(report.conflicted.count == 1 && report.conflicted.first?.serverChangedBy == nil)
        #expect(await server.guardedFetchColumns().allSatisfy { !$0.contains("updated_by") })
    }

    private func device(
        _ name: String, _ user: UUID, _ server: InMemoryServer, schema: AppSchema = GeneratedSchema.app,
        resolver: ConflictResolver? = nil
    ) throws -> TestDevice {
        var configuration = TestDevice.configuration
        configuration.resolver = resolver
        return try TestDevice(name, user: user, transport: server, schema: schema, configuration: configuration)
    }
}

extension InMemoryServer {
    /// The columns of every read by key so far.
    fileprivate func guardedFetchColumns() -> [[String]] {
        requestLog.compactMap { request in
            if case .fetch(_, _, let columns) = request { columns } else { nil }
        }
    }
}

/// A version table that is not shared: no updated_by.
private struct Note: SyncRecord {
    var id = UUID()
    var userId: UUID?
    var text: String
    var deletedMs: Int64?
    var version: Int64?
    var serverSeq: Int64?

    init(text: String) {
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case id, text, version
        case userId = "user_id"
        case deletedMs = "deleted_ms"
        case serverSeq = "server_seq"
    }

    static let table = TableSchema(
        name: "notes",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("text", .text),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("version", .int, role: .version),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
        ],
        conflict: .version(.integer), ordering: .exact)

    static let app = AppSchema(
        tables: [table],
        migrations: [
            LocalMigration(
                version: 1, name: "initial",
                sql: """
                    CREATE TABLE IF NOT EXISTS _sync_cursors (table_name TEXT PRIMARY KEY NOT NULL, server_seq INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE notes (
                        id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL, text TEXT NOT NULL, deleted_ms INTEGER,
                        version INTEGER, server_seq INTEGER, _dirty INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        ])
}
