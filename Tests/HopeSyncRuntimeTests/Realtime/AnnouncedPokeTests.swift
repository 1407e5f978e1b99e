import Foundation
import HopeSchema
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@_spi(Transport) @testable import HopeSync

/// A device that announces its own pushes (Realtime's client broadcast): while its poke source
/// is connected, each push asks the server to skip its poke and the device announces it instead,
/// so the user's other devices still pull at once; while it is not connected, the server pokes
/// as before.
@Suite struct AnnouncedPokeTests {
    let user = UUID()
    let server = InMemoryServer.hope()
    let pokes = FakePokes(connectAtOnce: false, announcesWrites: true)

    func device(_ name: String) throws -> TestDevice {
        try TestDevice(name, user: user, transport: PokingTransport(server, pokes: pokes), pokes: pokes)
    }

    func connected(_ device: TestDevice) async -> Bool {
        await device.engine.pokesConnected
    }

    func has(_ device: TestDevice, _ name: String) throws -> Bool {
        try device.store.read { try $0.fetchAll(Activity.self) }.contains { $0.name == name }
    }

    @Test func aConnectedDeviceAnnouncesItsPushInPlaceOfTheServer() async throws {
        let (a, b) = (try device("a"), try device("b"))
        await a.engine.start()
        await b.engine.start()
        pokes.send(.connected, to: user)
        #expect(await eventually { await connected(a) })
        #expect(await eventually { await connected(b) })
        try await a.store.write { _ = try $0.save(Activity(name: "Announced")) }
        #expect(await eventually { (try? has(b, "Announced")) == true })
        // One poke, the device's: the transport (as the triggers) poked nobody for that push.
        #expect(pokes.announcedCount == 1 && pokes.sentCount == 1)
        await a.engine.stop()
        await b.engine.stop()
    }

    @Test func aDeviceNotConnectedLeavesThePokeToTheServer() async throws {
        let (a, b) = (try device("a"), try device("b"))
        await b.engine.start()
        pokes.send(.connected, to: user)
        #expect(await eventually { await connected(b) })
        // a never started its engine: it hears no pokes, so it announces nothing.
        try await a.store.write { _ = try $0.save(Activity(name: "Poked by the server")) }
        try await a.sync()
        #expect(await eventually { (try? has(b, "Poked by the server")) == true })
        #expect(pokes.announcedCount == 0 && pokes.sentCount == 1)
        await b.engine.stop()
    }

    /// A source that announces writes but is never joined.
    struct NeverJoined: PokeSource {
        var announcesWrites: Bool { true }
        func announce(_ poke: PokeEvent, for userID: UUID) -> Bool { false }
        func events(for userID: UUID, credentials: @escaping @Sendable () async -> Credentials?) -> AsyncStream<PokeEvent> {
            AsyncStream { $0.finish() }
        }
    }

    @Test func anAnnouncementThatCannotGoOutLeavesTheRestOfThePassToTheServer() {
        let announcer = PushAnnouncer(NeverJoined(), for: user)
        // A push the server took nothing of needs no poke, and asks nothing of the source.
        announcer.announce([], of: Activity.table)
        #expect(announcer.isAnnouncing)
        announcer.announce([ColumnValues(["id": .text(UUID().uuidString.lowercased()), "server_seq": .int(3)])], of: Activity.table)
        #expect(!announcer.isAnnouncing)
    }
}
