import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// The client follows its auth source: each user's own store, switches, sign-outs that keep or
/// clear, and a refused token refreshed once.
@Suite struct SyncClientTests {
    let server = InMemoryServer.hope()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().lowercasedString)")
    let alice = UUID()
    let bob = UUID()

    func client(_ auth: ScriptedAuth, policy: SignOutPolicy = .keepData) -> SyncClient {
        var configuration = SyncClient.Configuration(signOutPolicy: policy)
        configuration.sync.pollInterval = .seconds(60)
        return SyncClient(schema: HopeFixture.app(), directory: directory, auth: auth, configuration: configuration) { [server] _ in
            SyncClient.Connection(transport: server)
        }
    }

    func session(of client: SyncClient, _ user: UUID?) async throws -> SyncSession? {
        #expect(try await waitUntil { await client.userID == user })
        return await client.session
    }

    func names(_ store: SyncStore?) async throws -> [String] {
        try await store?.read { try $0.fetchAll(Activity.self, orderBy: "name").map(\.name) } ?? []
    }

    @Test func signedOutThereIsNoStoreAndTheStatusWaitsForSignIn() async throws {
        let client = client(ScriptedAuth())
        await client.start()
        try await Task.sleep(for: .milliseconds(50))
        #expect(await client.store == nil)
        #expect(await client.status.phase == .waitingForSignIn)
        #expect(await client.status.needsSignIn)
        await #expect { try await client.syncNow() } throws: { ($0 as? SyncError)?.code == .signedOut }
    }

    @Test func aSwitchShowsTheOtherUsersRowsAndKeepsTheFirstUsersFile() async throws {
        let auth = ScriptedAuth(alice)
        let client = client(auth)
        await client.start()
        let a = try #require(try await session(of: client, alice))
        #expect(a.store.path == SyncStore.databaseURL(for: alice, in: directory).path)
        try await a.store.write { try $0.save(Activity(name: "Alice's")) }
        try await client.syncNow()

        auth.signIn(bob)
        let b = try #require(try await session(of: client, bob))
        try await client.syncNow()
        #expect(try await names(b.store) == [])
        try await b.store.write { try $0.save(Activity(name: "Bob's")) }
        try await client.syncNow()
        #expect(FileManager.default.fileExists(atPath: SyncStore.databaseURL(for: alice, in: directory).path))
        // Alice's store was closed when Bob signed in.
        #expect(throws: SyncError.self) { try a.store.read { try $0.fetchCount(Activity.self) } }

        auth.signIn(alice)
        let again = try #require(try await session(of: client, alice))
        try await client.syncNow()
        #expect(try await names(again.store) == ["Alice's"])
        #expect(await server.rows(of: "activities").count == 2)
        await client.stop()
    }

    @Test func signingOutKeepingDataReopensTheFileOffline() async throws {
        let auth = ScriptedAuth(alice)
        let client = client(auth)
        await client.start()
        let a = try #require(try await session(of: client, alice))
        try await a.store.write { try $0.save(Activity(name: "Synced")) }
        try await client.syncNow()
        try await a.store.write { try $0.save(Activity(name: "Queued")) }

        auth.signOut()
        #expect(try await session(of: client, nil) == nil)
        #expect(await client.status.phase == .waitingForSignIn)
        await server.setOnline(false)
        auth.signIn(alice)
        let reopened = try #require(try await session(of: client, alice))
        #expect(try await names(reopened.store) == ["Queued", "Synced"])
        await server.setOnline(true)
        try await client.syncNow()
        #expect(await server.rows(of: "activities").count == 2)
        await client.stop()
    }

    @Test func signingOutClearingDataDeletesTheUsersFileAndFolder() async throws {
        let auth = ScriptedAuth(alice)
        let client = client(auth, policy: .clearData)
        await client.start()
        let a = try #require(try await session(of: client, alice))
        try await a.store.write { try $0.save(Activity(name: "Private")) }
        try await client.syncNow()
        let database = SyncStore.databaseURL(for: alice, in: directory)
        #expect(FileManager.default.fileExists(atPath: database.path))

        auth.signOut()
        _ = try await session(of: client, nil)
        #expect(try await waitUntil { !FileManager.default.fileExists(atPath: database.path) })
        #expect(!FileManager.default.fileExists(atPath: database.path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: database.deletingPathExtension().appendingPathExtension("files").path))

        // Signing in again pulls the rows back into a new file.
        auth.signIn(alice)
        let again = try #require(try await session(of: client, alice))
        try await client.syncNow()
        #expect(try await names(again.store) == ["Private"])
        await client.stop()
    }

    @Test func thePolicyForTheNextSignOutIsTheAppsChoice() async throws {
        let auth = ScriptedAuth(alice)
        let client = client(auth)
        await client.start()
        _ = try #require(try await session(of: client, alice))
        await client.setSignOutPolicy(.clearData)
        auth.signIn(bob)
        _ = try #require(try await session(of: client, bob))
        #expect(!FileManager.default.fileExists(atPath: SyncStore.databaseURL(for: alice, in: directory).path))
        // Back to the configured policy: Bob's file stays.
        auth.signOut()
        _ = try await session(of: client, nil)
        #expect(FileManager.default.fileExists(atPath: SyncStore.databaseURL(for: bob, in: directory).path))
        try await client.removeLocalData(of: bob)
        #expect(!FileManager.default.fileExists(atPath: SyncStore.databaseURL(for: bob, in: directory).path))
        await client.stop()
    }

    /// The auth client switched users before its stream said so: Alice's rows do not go with
    /// Bob's token.
    @Test func aTokenOfAnotherUserSendsNothing() async throws {
        let auth = ScriptedAuth(alice)
        let client = client(auth)
        await client.start()
        let a = try #require(try await session(of: client, alice))
        // The first pass over (a pass that read Alice's credentials before the switch would
        // rightly send her write with her token).
        try await client.syncNow()
        auth.state.withLock { $0.user = bob }
        try await a.store.write { try $0.save(Activity(name: "Alice's")) }
        await #expect { try await client.syncNow() } throws: { ($0 as? SyncError)?.code == .signedOut }
        #expect(await server.rows(of: "activities").isEmpty)
        await client.stop()
    }

    @Test func aRefusedTokenIsRefreshedOnceThroughTheAuthSource() async throws {
        let auth = ScriptedAuth(alice)
        auth.state.withLock { $0.refreshedTokens = ["token-2"] }
        let client = SyncClient(schema: HopeFixture.app(), directory: directory, auth: auth) { [server] tokens in
            SyncClient.Connection(transport: TokenCheckingTransport(forwardee: server, tokens: tokens, accepted: "token-2"))
        }
        await client.start()
        let a = try #require(try await session(of: client, alice))
        try await a.store.write { try $0.save(Activity(name: "Sent")) }
        try await client.syncNow()
        #expect(auth.refreshCount >= 1)
        #expect(await server.rows(of: "activities").count == 1)
        #expect(await client.status.needsSignIn == false)
        await client.stop()
    }

    @Test func aTokenStillRefusedAfterTheRefreshSaysSignInAgain() async throws {
        let auth = ScriptedAuth(alice)
        auth.state.withLock { $0.refreshedTokens = ["token-2"] }
        let client = SyncClient(schema: HopeFixture.app(), directory: directory, auth: auth) { [server] tokens in
            SyncClient.Connection(transport: TokenCheckingTransport(forwardee: server, tokens: tokens, accepted: "never"))
        }
        await client.start()
        _ = try #require(try await session(of: client, alice))
        await #expect { try await client.syncNow() } throws: { ($0 as? SyncError)?.code == .accessToken }
        // The engine may be between retries when first asked (a pass in flight has another phase).
        #expect(
            try await waitUntil {
                let status = await client.status
                return status.needsSignIn && status.phase == .waitingForSignIn
            })
        await client.stop()
    }
}
