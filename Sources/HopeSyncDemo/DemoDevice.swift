import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncLocking

/// One device of the demo's user: its own SQLite file and engine, and a clock the demo sets.
final class DemoDevice: Sendable {
    let name: String
    let store: SyncStore
    let engine: SyncEngine
    private let nowMs: Locked<Int64>

    init(_ name: String, user: UUID, directory: URL, transport: any SyncTransport, startingAt ms: Int64) throws {
        self.name = name
        nowMs = Locked(ms)
        let clock = Clock()
        store = try SyncStore(
            path: directory.appendingPathComponent("\(name).sqlite").path,
            schema: GeneratedSchema.app,
            userID: user, deviceID: name, wallClock: clock.read
        )
        engine = SyncEngine(store: store, transport: transport) { Credentials(userID: user, accessToken: "demo") }
        clock.device = self
    }

    /// The device's wall clock; the demo moves it so the output is the same every run.
    var now: Int64 {
        get { nowMs.value }
        set { nowMs.value = newValue }
    }

    /// Reads `now` for the store, which is made before `self` is whole.
    private final class Clock: @unchecked Sendable {
        weak var device: DemoDevice?
        var read: @Sendable () -> Int64 { { self.device?.now ?? 0 } }
    }

    /// One sync, told as a line: what was sent and received, or, with the network switched
    /// off, that nothing was. Any other failure ends the demo.
    func sync() async throws(SyncError) -> String {
        do {
            let report = try await engine.syncNow()
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
