import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Observation
import Testing

/// The `@Observable` models redraw a view through Observation, on Linux too.
@MainActor @Suite struct SyncQueryTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("query-\(UUID().lowercasedString)")

    /// Whether reading `read` tracked a change within a few seconds of `change`.
    func changeIsObserved(reading read: @escaping @MainActor () -> Void, after change: () async throws -> Void) async throws -> Bool {
        let changed = Locked(false)
        withObservationTracking(read) { changed.value = true }
        try await change()
        return try await waitUntil { changed.value }
    }

    @Test func aQueryModelFollowsTheStoresCommits() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SyncStore(directory: directory, schema: HopeFixture.app(), userID: UUID())
        let query = SyncQuery(store: store) { try $0.fetchAll(Activity.self).map(\.name) }
        #expect(try await waitUntil { query.value == [] })
        #expect(
            try await changeIsObserved(
                reading: { _ = query.value },
                after: { try await store.write { try $0.save(Activity(name: "Write")) } }))
        #expect(try await waitUntil { query.value == ["Write"] })
    }

    @Test func aClientsModelsFollowTheSignedInUser() async throws {
        let server = InMemoryServer.hope()
        let (alice, bob) = (UUID(), UUID())
        let auth = ScriptedAuth(alice)
        let client = SyncClient(schema: HopeFixture.app(), directory: directory, auth: auth) { _ in
            SyncClient.Connection(transport: server)
        }
        let status = SyncStatusModel(client: client)
        let names = SyncQuery(client: client) { try $0.fetchAll(Activity.self).map(\.name) }
        await client.start()
        #expect(try await waitUntil { names.value == [] })
        let a = try #require(await client.store)
        #expect(
            try await changeIsObserved(
                reading: { _ = names.value },
                after: { try await a.write { try $0.save(Activity(name: "Alice's")) } }))
        #expect(try await waitUntil { names.value == ["Alice's"] })

        #expect(try await changeIsObserved(reading: { _ = status.status }, after: { auth.signIn(bob) }))
        #expect(try await waitUntil { await client.userID == bob && names.value == [] })
        auth.signOut()
        #expect(try await waitUntil { status.status.phase == .waitingForSignIn && names.value == nil })
        await client.stop()
    }
}
