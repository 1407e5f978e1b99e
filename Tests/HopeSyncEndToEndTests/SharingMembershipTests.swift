import Foundation
@_spi(Transport) import HopeSync
import HopeSyncGenerator
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresCluster
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncTestSupport
import Testing

/// Membership changes (docs/PROTOCOL.md, "Sharing (scopes)") on PostgreSQL 15, on the SQL the
/// generator renders for Tests/Fixtures/Sharing/schema.yaml: first the PostgreSQL transport's
/// requests as PostgREST would run them, then the engine's and the client's calls through it,
/// each refusal the error an app sees. An owner, Ana and Ben (members to be), and an outsider.
@Suite struct SharingMembershipTests {
    let server: SharingServer
    let owner = UUID()
    let ana = UUID()
    let ben = UUID()
    let outsider = UUID()

    init() throws {
        server = try SharingServer()
    }

    /// The membership row of `user` in `list`, as the superuser reads it: role and whether it is
    /// current.
    func membership(of user: UUID, in list: UUID) throws -> String? {
        try server.database.connect().execute(
            "select role || ' ' || (deleted_ms is null)::text from public.task_lists_members where scope_id = $1 and user_id = $2",
            [list.uuidString.lowercased(), user.uuidString.lowercased()]
        ).scalar
    }

    // MARK: The transport

    @Test func theTransportWritesMembershipsAsPostgRESTWouldAndKeepsEachRefusalsSQLSTATE() async throws {
        let list = UUID()
        try server.createList(list, as: owner)
        let transport = server.transport
        let members = SharingApp.members
        func change(_ user: UUID, _ role: MemberRole?, as caller: UUID) async throws(SyncError) -> [ColumnValues] {
            try await transport.changeMembership(
                MembershipChange(scopeID: list, userID: user, role: role), in: members, as: Credentials(caller))
        }
        func refusal(_ user: UUID, _ role: MemberRole?, as caller: UUID) async -> ServerError? {
            do {
                _ = try await change(user, role, as: caller)
                return nil
            } catch {
                #expect(error.code == .server)
                return error.serverError
            }
        }

        // Shared: the server stamps who added the member, when, and the membership's place in
        // the scope's stream; every column comes back.
        let shared = try await change(ana, .editor, as: owner)
        #expect(shared.count == 1)
        let row = try #require(shared.first)
        #expect(row.columns == members.columnNames)
        #expect(row["user_id"] == .text(ana.uuidString.lowercased()))
        #expect(row["role"] == .text("editor"))
        #expect(row["added_by"] == .text(owner.uuidString.lowercased()))
        #expect(row["deleted_ms"] == .null)
        #expect(row["server_seq"]?.int != nil)
        // A repeat changes nothing, and says so with no row.
        #expect(try await change(ana, .editor, as: owner).isEmpty)
        // A role changed in place: the same membership.
        let changed = try await change(ana, .viewer, as: owner)
        #expect(changed.first?["id"] == row["id"])
        #expect(changed.first?["role"] == .text("viewer"))
        #expect(try membership(of: ana, in: list) == "viewer true")

        // Only an owner adds members (a viewer, and a user who is not a member, alike).
        let viewerAdding = await refusal(ben, .viewer, as: ana)
        #expect(viewerAdding?.code == "42501" && viewerAdding?.status == 403)
        #expect(await refusal(ben, .editor, as: outsider)?.code == "42501")
        // Nobody changes their own role; the last owner stays one, and stays.
        #expect(await refusal(owner, .editor, as: owner)?.code == "HS001")
        #expect(await refusal(owner, nil, as: owner)?.code == "HS002")
        #expect(await refusal(owner, nil, as: owner)?.status == 400)

        // A removal row-level security does not let through changes nothing, without an error:
        // by someone who is not an owner, or of a user who is not a member.
        #expect(try await change(owner, nil, as: ana).isEmpty)
        #expect(try await change(outsider, nil, as: owner).isEmpty)
        #expect(try membership(of: owner, in: list) == "owner true")

        // A member leaves: the server writes the removal's time.
        let left = try await change(ana, nil, as: ana)
        #expect(left.first?["deleted_ms"]?.int.map { $0 > 1 } == true)
        #expect(try membership(of: ana, in: list) == "viewer false")
        // Added back by an owner.
        #expect(try await change(ana, .editor, as: owner).first?["deleted_ms"] == .null)
        #expect(try membership(of: ana, in: list) == "editor true")
    }

    // MARK: The engine

    @Test func theEngineSharesAtOnceAndSaysWhyTheServerRefused() async throws {
        let ownerDevice = try Device("owner", user: owner, transport: server.transport, schema: SharingApp.schema)
        // Made on the device and never pushed: the share pushes it first.
        let list = SharedList(name: "Groceries")
        try await ownerDevice.store.write { try $0.save(list) }
        try await ownerDevice.engine.share(list, with: ana, as: .editor)
        #expect(try membership(of: ana, in: list.id) == "editor true")
        #expect(try ownerDevice.dirtyCount() == 0)
        // The members list shows the change at once (the answer applied), beside the owner the
        // pass before it pulled.
        let members = try ownerDevice.store.members(of: list)
        #expect(members.map(\.userID) == [owner, ana])
        #expect(members.map(\.role) == [.owner, .editor])
        #expect(members.last?.addedBy == owner)
        #expect(members.allSatisfy { $0.scopeID == list.id })

        // A role changed, and changed back.
        try await ownerDevice.engine.share(list, with: ana, as: .viewer)
        #expect(try ownerDevice.store.members(of: list).last?.role == .viewer)
        #expect(try membership(of: ana, in: list.id) == "viewer true")
        try await ownerDevice.engine.share(list, with: ana, as: .editor)
        #expect(try ownerDevice.store.members(of: list).last?.role == .editor)
        try await ownerDevice.engine.share(list, with: ben, as: .editor)

        // Ana, an editor, reads the list and may not add anyone, nor remove anyone.
        let anaDevice = try Device("ana", user: ana, transport: server.transport, schema: SharingApp.schema)
        try await anaDevice.sync()
        let anasList = try #require(try await anaDevice.store.read { try $0.fetchOne(SharedList.self, id: list.id) })
        let notOwner = await sharingError { try await anaDevice.engine.share(anasList, with: outsider, as: .viewer) }
        #expect(notOwner?.code == .notAllowed)
        #expect(notOwner?.serverError?.code == "42501")
        #expect(notOwner?.message.contains("Only an owner adds members") == true)
        let notOwnerRemoving = await sharingError { try await anaDevice.engine.removeMember(ben, from: anasList) }
        #expect(notOwnerRemoving?.code == .notAllowed)
        #expect(notOwnerRemoving?.message.contains("Not an owner of this task_lists row, or no such member") == true)
        #expect(try membership(of: ben, in: list.id) == "editor true")

        // The owner may not change their own role, nor leave as the last owner.
        let ownRole = await sharingError { try await ownerDevice.engine.share(list, with: owner, as: .editor) }
        #expect(ownRole?.code == .notAllowed)
        #expect(ownRole?.serverError?.code == "HS001")
        #expect(ownRole?.message.contains("Nobody adds themselves or changes their own role") == true)
        let lastOwner = await sharingError { try await ownerDevice.engine.leave(list) }
        #expect(lastOwner?.code == .notAllowed)
        #expect(lastOwner?.serverError?.code == "HS002")
        #expect(lastOwner?.message.contains("The last owner cannot leave") == true)
        #expect(lastOwner?.message.contains("make another member of this task_lists row an owner first") == true)
        #expect(try membership(of: owner, in: list.id) == "owner true")

        // Removing a user who is not a member changes no row: not allowed, and said so.
        let noSuchMember = await sharingError { try await ownerDevice.engine.removeMember(outsider, from: list) }
        #expect(noSuchMember?.code == .notAllowed)
        #expect(noSuchMember?.serverError == nil)

        // Ana leaves; leaving again is a repeat, not a refusal (her device holds the ended
        // membership).
        try await anaDevice.engine.leave(anasList)
        #expect(try membership(of: ana, in: list.id) == "editor false")
        try await anaDevice.engine.leave(anasList)
        // The owner removes Ben; the owner's list shows it at once, and Ana's leaving (another
        // device's change) after the owner's next pull.
        try await ownerDevice.engine.removeMember(ben, from: list)
        #expect(try membership(of: ben, in: list.id) == "editor false")
        #expect(try ownerDevice.store.members(of: list).map(\.userID) == [owner, ana])
        try await ownerDevice.sync()
        #expect(try ownerDevice.store.members(of: list).map(\.userID) == [owner])
    }

    @Test func aChangeNeedsTheNetworkAScopeRowAndARoleTheServerKnows() async throws {
        let device = try Device("owner", user: owner, transport: server.transport, schema: SharingApp.schema)
        let list = SharedList(name: "Trip")
        try await device.store.write { try $0.save(list) }

        // Offline: nothing is sent, and the list stays waiting to be pushed.
        await device.engine.setNetworkEnabled(false)
        let offline = await sharingError { try await device.engine.share(list, with: ana, as: .viewer) }
        #expect(offline?.code == .networkDisabled)
        #expect(try device.dirtyCount() == 1)
        #expect(try membership(of: ana, in: list.id) == nil)
        await device.engine.setNetworkEnabled(true)

        // A row of a table that is not a scope table, and a row this device does not hold.
        let member = SharedListMember(scopeId: list.id, userId: ana, addedBy: owner)
        let notAScope = await sharingError { try await device.engine.share(member, with: ana, as: .viewer) }
        #expect(notAScope?.code == .invalidRequest)
        #expect(notAScope?.message.contains("task_lists_members is not a scope table") == true)
        let unsaved = await sharingError { try await device.engine.share(SharedList(name: "Unsaved"), with: ana, as: .viewer) }
        #expect(unsaved?.code == .invalidRequest)
        #expect(unsaved?.message.contains("not in the local store") == true)

        // A role outside owner, editor and viewer cannot be written: MemberRole has no other.
        #expect(MemberRole(rawValue: "admin") == nil)
        #expect(MemberRole(rawValue: "Owner") == nil)
        #expect(MemberRole(rawValue: "viewer") == .viewer)
    }

    @Test func aScopeAnotherRequestHoldsIsTriedAgainAFewTimesThenFailsAsTheServerSaid() async throws {
        let busy = BusyScopes(server.transport, failures: 2)
        let waits = Waits()
        var configuration = Device.configuration
        configuration.sleep = { waits.append($0) }
        let device = try Device("owner", user: owner, transport: busy, configuration: configuration, schema: SharingApp.schema)
        let list = SharedList(name: "Busy")
        try await device.store.write { try $0.save(list) }
        try await device.sync()

        try await device.engine.share(list, with: ana, as: .editor)
        #expect(busy.attempts == 3)
        #expect(waits.values == [.milliseconds(200), .milliseconds(400)])
        #expect(try membership(of: ana, in: list.id) == "editor true")

        busy.failNext(10)
        let error = await sharingError { try await device.engine.share(list, with: ben, as: .viewer) }
        #expect(error?.code == .server)
        #expect(error?.serverError?.code == "55P03")
        #expect(busy.attempts == 3 + SyncEngine.membershipAttempts)
        #expect(try membership(of: ben, in: list.id) == nil)
    }

    // MARK: The client

    @Test func theClientSharesForTheSignedInUserAndReadsTheMembersFromTheirStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sharing-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let auth = ScriptedAuth()
        var configuration = SyncClient.Configuration()
        configuration.sync.pollInterval = .seconds(3_600)
        let client = SyncClient(schema: SharingApp.schema, directory: directory, auth: auth, configuration: configuration) {
            [transport = server.transport] _ in SyncClient.Connection(transport: transport)
        }
        await client.start()
        let list = SharedList(name: "Books")
        let signedOut = await sharingError { try await client.share(list, with: ana, as: .viewer) }
        #expect(signedOut?.code == .signedOut)
        #expect(try await client.members(of: list).isEmpty)

        auth.signIn(owner)
        #expect(await eventually { await client.userID == owner })
        let store = try #require(await client.store)
        try await store.write { try $0.save(list) }
        try await client.share(list, with: ana, as: .viewer)
        #expect(try await client.members(of: list).contains { $0.userID == ana && $0.role == .viewer })
        try await client.removeMember(ana, from: list)
        #expect(try await client.members(of: list).contains { $0.userID == ana } == false)
        #expect(try membership(of: ana, in: list.id) == "viewer false")
        await client.stop()
    }
}

/// Runs `body` and returns the SyncError it throws; nil when it succeeds.
private func sharingError(_ body: () async throws -> Void) async -> SyncError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? SyncError ?? SyncError(.syncFailed, "not a SyncError: \(error)")
    }
}

/// A database of its own with the server SQL of Tests/Fixtures/Sharing/schema.yaml applied.
struct SharingServer: Sendable {
    let database: TestDatabase
    let transport: PostgresTransport

    static let schemaURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/Sharing/schema.yaml")

    init() throws {
        database = try PostgresCluster.createDatabase()
        let schema = try SchemaParser.parse(String(contentsOf: Self.schemaURL, encoding: .utf8)).schema
        let renderer = SupabaseRenderer(templates: try TemplateSet(directory: nil))
        try database.connect().execute(script: try renderer.schemaSQL(schema, columnOrder: ServerColumnOrder()))
        transport = PostgresTransport(url: database.url)
    }

    /// A list `user` creates (and so owns), as a request of theirs.
    func createList(_ id: UUID, as user: UUID) throws {
        try database.connect().request(asUser: user) {
            try $0.execute(
                "insert into public.task_lists (id, user_id, name) values ($1, $2, 'list')",
                [id.uuidString.lowercased(), user.uuidString.lowercased()])
        }
    }
}

/// The Swift side of the fixture's two sharing tables, as the generator writes them for a
/// shared schema (References/shared_scope): task_lists a scope table, task_lists_members its
/// membership table. The pull of shared streams is not written yet: these two sync table by
/// table, which is enough for memberships.
enum SharingApp {
    static let lists = TableSchema(
        name: "task_lists",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("name", .text),
            ColumnSchema("position", .double),
            ColumnSchema("icon", .bytes, nullable: true),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("version", .int, role: .version),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
        ],
        conflict: .version(.integer),
        ordering: .exact,
        scope: .scope("task_lists", members: "task_lists_members")
    )

    static let members = TableSchema(
        name: "task_lists_members",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("scope_id", .uuid),
            ColumnSchema("user_id", .uuid),
            ColumnSchema("role", .enumeration(["owner", "editor", "viewer"])),
            ColumnSchema("added_by", .uuid),
            ColumnSchema("added_at", .timestamp),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
        ],
        conflict: .version(.integer),
        ordering: .exact,
        scope: .membership(of: "task_lists", table: "task_lists_members")
    )

    static let schema = AppSchema(
        tables: [lists, members],
        migrations: [
            LocalMigration(
                version: 1, name: "initial",
                sql: """
                    CREATE TABLE IF NOT EXISTS _sync_cursors (table_name TEXT PRIMARY KEY NOT NULL, server_seq INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE task_lists (
                        id TEXT PRIMARY KEY NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL, position REAL NOT NULL,
                        icon BLOB, deleted_ms INTEGER, version INTEGER, server_seq INTEGER, _dirty INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE task_lists_members (
                        id TEXT PRIMARY KEY NOT NULL, scope_id TEXT NOT NULL, user_id TEXT NOT NULL,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), added_by TEXT NOT NULL,
                        added_at TEXT NOT NULL, deleted_ms INTEGER, server_seq INTEGER, _dirty INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        ])
}

/// A row of task_lists.
struct SharedList: SyncRecord {
    var id = UUID()
    var userId: UUID?
    var name: String
    var position = 0.0
    var icon: Data?
    var deletedMs: Int64?
    var version: Int64?
    var serverSeq: Int64?

    init(name: String) {
        self.name = name
    }

    enum CodingKeys: String, CodingKey {
        case id, name, position, icon, version
        case userId = "user_id"
        case deletedMs = "deleted_ms"
        case serverSeq = "server_seq"
    }

    static let table = SharingApp.lists
}

/// A row of task_lists_members (the server writes them; here only to be refused as a scope).
struct SharedListMember: SyncRecord {
    var id = UUID()
    var scopeId: UUID
    var userId: UUID
    var role = "viewer"
    var addedBy: UUID
    var addedAt = "2026-12-03T10:00:00+00:00"
    var deletedMs: Int64?
    var serverSeq: Int64?

    enum CodingKeys: String, CodingKey {
        case id, role
        case scopeId = "scope_id"
        case userId = "user_id"
        case addedBy = "added_by"
        case addedAt = "added_at"
        case deletedMs = "deleted_ms"
        case serverSeq = "server_seq"
    }

    static let table = SharingApp.members
}

/// A transport whose membership changes fail as a scope another request holds (55P03) the
/// next `failures` times, then pass on.
final class BusyScopes: ForwardingTransport, Sendable {
    let forwardee: any SyncTransport
    private let state: Locked<(failures: Int, attempts: Int)>

    init(_ forwardee: any SyncTransport, failures: Int) {
        self.forwardee = forwardee
        state = Locked((failures, 0))
    }

    var attempts: Int { state.value.attempts }
    func failNext(_ count: Int) { state.withLock { $0.failures = count } }

    func changeMembership(_ change: MembershipChange, in membershipTable: TableSchema, as user: Credentials) async throws(SyncError)
        -> [ColumnValues]
    {
        let fails = state.withLock { state in
            state.attempts += 1
            defer { state.failures -= 1 }
            return state.failures > 0
        }
        if fails {
            throw SyncError(
                .server, "The server refused a request on \(membershipTable.name) (HTTP 500, 55P03)",
                serverError: ServerError(status: 500, code: "55P03", message: "another request is writing this scope"))
        }
        return try await forwardee.changeMembership(change, in: membershipTable, as: user)
    }
}

/// The waits the engine asked for.
final class Waits: Sendable {
    private let waits = Locked<[Duration]>([])

    func append(_ wait: Duration) { waits.withLock { $0.append(wait) } }
    var values: [Duration] { waits.value }
}
