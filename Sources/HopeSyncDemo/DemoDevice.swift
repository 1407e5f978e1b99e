import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncLocking

/// One device of the demo's user: a `SyncClient` of its own (its own directory, so its own
/// SQLite file), with a fixed device id and a clock the demo sets. The demo syncs by hand, so its
/// output is the same every run: the engine the client starts is stopped at once.
final class DemoDevice: Sendable {
    let name: String
    let client: SyncClient
    let store: SyncStore
    let engine: SyncEngine
    private let nowMs: Locked<Int64>

    private init(_ name: String, client: SyncClient, session: SyncSession, nowMs: Locked<Int64>) {
        self.name = name
        self.client = client
        store = session.store
        engine = session.engine
        self.nowMs = nowMs
    }

    /// The device signed in as `user`, its store open and nothing syncing until ``sync()``.
    static func open(_ name: String, user: UUID, directory: URL, transport: any SyncTransport, startingAt ms: Int64) async throws
        -> DemoDevice
    {
        let nowMs = Locked(ms)
        var configuration = SyncClient.Configuration()
        configuration.deviceID = name
        configuration.wallClock = { nowMs.value }
        let client = SyncClient(
            schema: GeneratedSchema.app, directory: directory.appendingPathComponent(name), auth: DemoAuth(user: user),
            configuration: configuration
        ) { _ in SyncClient.Connection(transport: transport) }
        await client.start()
        var opened: SyncSession?
        for await session in client.sessionUpdates() where session != nil {
            opened = session
            break
        }
        guard let session = opened else { throw SyncError(.configuration, "The \(name)'s store did not open") }
        // The client starts the engine's schedule once the store is open; stopped, it syncs only
        // when asked. Its first pass (nothing to send yet) is waited out by one more.
        while await !session.engine.isRunning { await Task.yield() }
        await session.engine.stop()
        try await session.engine.syncNow()
        return DemoDevice(name, client: client, session: session, nowMs: nowMs)
    }

    /// The device's wall clock; the demo moves it so the output is the same every run.
    var now: Int64 {
        get { nowMs.value }
        set { nowMs.value = newValue }
    }

    /// One sync, told as a line: what was sent and received, or, with the network switched
    /// off, that nothing was. Any other failure ends the demo.
    func sync() async throws(SyncError) -> String {
        do {
            let report = try await client.syncNow()
            return "\(name) synced: pushed \(report.pushed), pulled \(report.pulled)"
        } catch  where error.code == .networkDisabled {
            return "\(name) could not sync: \(error.message)"
        }
    }

    /// What the device shows: its sessions, oldest first.
    func sessions() throws -> [Session] {
        try store.read { try $0.fetchAll(Session.self) }.sorted { ($0.startedMs, $0.id.uuidString) < ($1.startedMs, $1.id.uuidString) }
    }
}

/// The demo's one user, signed in for good, with a token the demo's servers do not check.
struct DemoAuth: SyncAuthSource {
    let user: UUID

    var users: AsyncStream<UUID?> {
        AsyncStream { $0.yield(user) }
    }

    func currentCredentials() async throws -> Credentials {
        Credentials(userID: user, accessToken: "demo")
    }

    func refreshedCredentials() async throws -> Credentials {
        try await currentCredentials()
    }
}
