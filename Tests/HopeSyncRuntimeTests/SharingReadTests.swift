import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
import Testing

/// Sharing read from the local store: a scope's current members from its membership table, the
/// scopes the user belongs to from `_sync_scopes`, and how the engine words the server's
/// refusals. The pull that fills both tables is not written yet: the rows go in as a
/// membership change's answer does (``SyncStore/applyMembershipRows(_:in:)``), and the scopes
/// through a test hook.
@Suite struct SharingReadTests {
    struct List: SyncRecord {
        var id = UUID()
        var name = "Groceries"
        var serverSeq: Int64?

        enum CodingKeys: String, CodingKey {
            case id, name
            case serverSeq = "server_seq"
        }

        static let table = TableSchema(
            name: "lists",
            columns: [
                ColumnSchema("id", .uuid, role: .id),
                ColumnSchema("name", .text),
                ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
            ],
            conflict: .version(.integer),
            ordering: .exact,
            scope: .scope("lists", members: "lists_members")
        )
    }

    /// A row of a table that is not a scope table.
    struct Note: SyncRecord {
        var id = UUID()
        var serverSeq: Int64?

        enum CodingKeys: String, CodingKey {
            case id
            case serverSeq = "server_seq"
        }

        static let table = TableSchema(
            name: "notes",
            columns: [ColumnSchema("id", .uuid, role: .id), ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq)],
            conflict: .version(.integer), ordering: .exact)
    }

    static let members = TableSchema(
        name: "lists_members",
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
        scope: .membership(of: "lists", table: "lists_members")
    )

    static let schema = AppSchema(
        tables: [List.table, members, Note.table],
        migrations: [
            LocalMigration(
                version: 1, name: "initial",
                sql: """
                    CREATE TABLE IF NOT EXISTS _sync_cursors (table_name TEXT PRIMARY KEY NOT NULL, server_seq INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, server_seq INTEGER, _dirty INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, server_seq INTEGER, _dirty INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE lists_members (
                        id TEXT PRIMARY KEY NOT NULL, scope_id TEXT NOT NULL, user_id TEXT NOT NULL,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), added_by TEXT NOT NULL,
                        added_at TEXT NOT NULL, deleted_ms INTEGER, server_seq INTEGER, _dirty INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        ])

    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sharing-\(UUID().uuidString).sqlite").path
    let user = UUID()
    let owner = UUID()
    let list = List()

    func openStore() throws -> SyncStore {
        try SyncStore(path: path, schema: Self.schema, userID: user)
    }

    /// A membership row as the server answers it: every column.
    func membership(
        _ member: UUID, _ role: String, in scope: UUID? = nil, at addedAt: String, deleted: Int64? = nil, serverSeq: Int64
    ) -> ColumnValues {
        ColumnValues(
            columns: Self.members.columnNames,
            values: [
                .text(UUID().lowercasedString), .text((scope ?? list.id).lowercasedString), .text(member.lowercasedString), .text(role),
                .text(owner.lowercasedString), .text(addedAt), deleted.map(SyncValue.int) ?? .null, .int(serverSeq),
            ])
    }

    @Test func theMembersAreTheScopesCurrentOnesInTheOrderTheyWereAdded() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try openStore()
        defer { store.close() }
        let (ana, ben, gone) = (UUID(), UUID(), UUID())
        #expect(try store.members(of: list).isEmpty)
        try store.applyMembershipRows(
            [
                membership(ben, "viewer", at: "2026-12-03T10:00:02+00:00", serverSeq: 3),
                membership(owner, "owner", at: "2026-12-03T10:00:00+00:00", serverSeq: 1),
                membership(ana, "editor", at: "2026-12-03T10:00:01+00:00", serverSeq: 2),
                membership(gone, "editor", at: "2026-12-03T09:00:00+00:00", deleted: 1_000, serverSeq: 4),
                membership(ana, "owner", in: UUID(), at: "2026-12-03T10:00:00+00:00", serverSeq: 5),
            ], in: Self.members)

        let members = try store.members(of: list)
        #expect(members.map(\.userID) == [owner, ana, ben])
        #expect(members.map(\.role) == [.owner, .editor, .viewer])
        #expect(
            members.first
                == ScopeMember(
                    scopeID: list.id, userID: owner, role: .owner, addedBy: owner,
                    addedAt: try #require(SyncTimestamp("2026-12-03T10:00:00+00:00"))))
        #expect(try await store.read { try $0.members(of: list) } == members)
        // Applied as pulled rows are: nothing waits to be pushed.
        #expect(try await store.read { try $0.dirtyCount() } == 0)
    }

    @Test func aScopesMembersAreObservedFromTheFirstValueOn() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try openStore()
        defer { store.close() }
        var updates = store.observeMembers(of: list).makeAsyncIterator()
        #expect(try await updates.next() == [])
        let ana = UUID()
        try store.applyMembershipRows([membership(ana, "editor", at: "2026-12-03T10:00:01+00:00", serverSeq: 2)], in: Self.members)
        #expect(try await updates.next()?.map(\.userID) == [ana])
        // Ana removed: the same membership, ended, with a later server_seq.
        let row = try #require(try await store.read { try $0.rowValues(of: Self.members.name) }.first)
        var ended = row
        ended.values[6] = .int(2_000)
        ended.values[7] = .int(3)
        try store.applyMembershipRows([ended], in: Self.members)
        #expect(try await updates.next() == [])
    }

    @Test func onlyAScopeTablesRowsHaveMembers() throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try openStore()
        defer { store.close() }
        #expect {
            try store.members(of: Note())
        } throws: { error in
            (error as? SyncError)?.code == .invalidRequest && (error as? SyncError)?.message.contains("notes is not a scope table") == true
        }
    }

    @Test func theSharedScopesAreTheOnesTheLastPullListed() async throws {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try openStore()
        defer { store.close() }
        var updates = store.observeSharedScopes().makeAsyncIterator()
        #expect(try await updates.next() == [])
        #expect(try store.sharedScopes().isEmpty)

        let (first, second) = (
            UUID(uuidString: "00000000-0000-4000-8000-000000000001")!, UUID(uuidString: "00000000-0000-4000-8000-000000000002")!
        )
        let scopes = [
            SharedScope(id: first, table: "lists", role: .owner, isArriving: false),
            SharedScope(id: second, table: "lists", role: .viewer, isArriving: true),
        ]
        // Test hook: the pull that fills `_sync_scopes` is not written yet.
        try store.replaceSharedScopesForTesting(scopes.reversed())
        #expect(try store.sharedScopes() == scopes)
        #expect(try await updates.next() == scopes)
        #expect(try await store.read { try $0.sharedScopes() } == scopes)

        try store.replaceSharedScopesForTesting([scopes[1]])
        #expect(try await updates.next() == [scopes[1]])
    }

    @Test(arguments: [
        ("42501", MemberRole?.some(.editor), SyncError.Code.notAllowed, "Only an owner adds members"),
        ("42501", nil, .notAllowed, "Only an owner removes members"),
        ("HS001", .owner, .notAllowed, "Nobody adds themselves or changes their own role"),
        ("HS002", nil, .notAllowed, "The last owner cannot leave"),
        ("22023", .viewer, .invalidRequest, "as malformed"),
        ("23505", .viewer, .server, "refused"),
    ])
    func theServersRefusalsBecomeTheRuleTheyEnforce(_ code: String, _ role: MemberRole?, _ expected: SyncError.Code, _ words: String) {
        let server = ServerError(status: code == "42501" ? 403 : 400, code: code, message: "refused")
        let error = SyncEngine.membershipFailure(
            SyncError(.server, "refused", serverError: server), MembershipChange(scopeID: list.id, userID: user, role: role), scope: "lists"
        )
        #expect(error.code == expected)
        #expect(error.message.contains(words))
        #expect(error.serverError == server)
    }

    @Test func aNetworkFailureIsNotTurnedIntoARefusal() {
        let offline = SyncError(.connectivity, "There is no network connection")
        #expect(
            SyncEngine.membershipFailure(offline, MembershipChange(scopeID: list.id, userID: user, role: nil), scope: "lists") == offline)
    }
}
