import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncLocking
import HopeSyncTestSupport
import Testing

/// One SyncClient on one device, through the generated SQL on a real PostgreSQL (row-level
/// security decides what each user sees): sign-ins, a switch and back, sign-outs that keep or
/// clear.
@Suite struct ClientEndToEndTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("client-e2e-\(UUID().lowercasedString)")
    let alice = UUID()
    let bob = UUID()

    /// The server's transport behind a switch: off, every request fails as offline.
    struct Unplugged: ForwardingTransport {
        let forwardee: any SyncTransport
        let online: Locked<Bool>

        func pull(
            _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
        ) async throws(SyncError) -> PulledTables {
            guard online.value else { throw SyncError(.connectivity, "unplugged") }
            return try await forwardee.pull(cursors, since: mark, limit: limit, function: function, as: user)
        }

        func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
            guard online.value else { throw SyncError(.connectivity, "unplugged") }
            return try await forwardee.upsert(rows, into: table, as: user)
        }
    }

    func client(_ server: TestServer, _ auth: ScriptedAuth, online: Locked<Bool> = Locked(true)) -> SyncClient {
        var configuration = SyncClient.Configuration()
        configuration.sync.sleep = { _ in try await Task.sleep(for: .seconds(3_600)) }
        return SyncClient(schema: GeneratedSchema.app, directory: directory, auth: auth, configuration: configuration) { _ in
            SyncClient.Connection(transport: Unplugged(forwardee: server.transport, online: online))
        }
    }

    func store(of client: SyncClient, _ user: UUID?) async throws -> SyncStore? {
        #expect(try await waitUntil { await client.userID == user })
        return await client.store
    }

    func names(_ store: SyncStore?) async throws -> [String] {
        try await store?.read { try $0.fetchAll(Activity.self, orderBy: "name").map(\.name) } ?? []
    }

    @Test func eachUserSeesOnlyTheirRowsAcrossASwitchAndBack() async throws {
        let server = try TestServer()
        let auth = ScriptedAuth(alice)
        let online = Locked(true)
        let client = client(server, auth, online: online)
        await client.start()
        let a = try #require(try await store(of: client, alice))
        try await a.write { try $0.save(Activity(name: "Alice's work")) }
        try await client.syncNow()

        auth.signIn(bob)
        let b = try #require(try await store(of: client, bob))
        try await client.syncNow()
        #expect(try await names(b) == [])
        try await b.write { try $0.save(Activity(name: "Bob's run")) }
        try await client.syncNow()
        #expect(try await server.rows(of: Activity.table, for: bob).count == 1)

        // Alice's kept file, offline: her rows and nothing of Bob's.
        online.value = false
        auth.signIn(alice)
        let again = try #require(try await store(of: client, alice))
        #expect(try await names(again) == ["Alice's work"])
        await #expect { try await client.syncNow() } throws: { ($0 as? SyncError)?.code == .connectivity }
        #expect(try await waitUntil { await client.status.phase == .offline })
        online.value = true
        try await client.syncNow()
        #expect(try await names(again) == ["Alice's work"])
        #expect(try server.count(of: "activities") == 2)
        await client.stop()
    }

    @Test func signingOutClearingDeletesTheFileAndTheNextSignInPullsBack() async throws {
        let server = try TestServer()
        let auth = ScriptedAuth(alice)
        let client = client(server, auth)
        await client.start()
        let a = try #require(try await store(of: client, alice))
        try await a.write { try $0.save(Activity(name: "Kept on the server")) }
        try await client.syncNow()
        let file = SyncStore.databaseURL(for: alice, in: directory)

        await client.setSignOutPolicy(.clearData)
        auth.signOut()
        #expect(try await store(of: client, nil) == nil)
        // The store is nobody's at once; its files go once its engine has stopped.
        #expect(try await waitUntil { !FileManager.default.fileExists(atPath: file.path) })
        #expect(!FileManager.default.fileExists(atPath: file.deletingPathExtension().appendingPathExtension("files").path))

        auth.signIn(alice)
        let again = try #require(try await store(of: client, alice))
        #expect(try await names(again) == [])
        try await client.syncNow()
        #expect(try await names(again) == ["Kept on the server"])
        await client.stop()
    }
}
