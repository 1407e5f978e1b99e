import Foundation
import HopeSchema
import HopeSync
import Testing

/// Refusals of the real server on the rejected list.
@Suite struct RejectionTests {
    /// A row the server refuses, deleted on the device and refused again: one entry on the
    /// rejected list, the newest refusal's.
    @Test func aRowRefusedTwiceHasOneEntryTheNewest() async throws {
        let server = try TestServer()
        try server.database.connect().execute("alter table public.activities add constraint no_secret check (name <> 'secret')")
        let phone = try Device("phone", user: UUID(), transport: server.transport)
        let secret = try await phone.store.write { try $0.save(Activity(name: "secret")) }
        #expect(try await phone.sync().rejected == 1)
        let first = try #require(try await phone.store.read { try $0.rejectedMutations() }.first)

        phone.clock.advance(60_000)
        try await phone.store.write { try $0.delete(Activity.self, id: secret.id) }
        #expect(try await phone.sync().rejected == 1)

        let rejected = try await phone.store.read { try $0.rejectedMutations() }
        #expect(rejected.count == 1)
        #expect(rejected.first?.serverError?.code == "23514")
        #expect(rejected.first?.rejectedAtMs == first.rejectedAtMs + 60_000)
        #expect(await phone.engine.status.rejectedCount == 1)
    }
}
