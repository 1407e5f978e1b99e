import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport

/// One device of one user: its own SQLite file, engine and clock, syncing through `transport`
/// (and hearing `pokes`, which want a real `accessToken`).
struct Device: Sendable {
    let name: String
    let user: UUID
    let clock: ManualClock
    let store: SyncStore
    let engine: SyncEngine
    private let file: TemporaryFile

    /// - Parameter schema: the app's generated list, which names the server's sync functions;
    ///   ``tablesOnly`` syncs table by table, as a build from before them does.
    init(
        _ name: String, user: UUID, transport: any SyncTransport, clock: ManualClock = ManualClock(ManualClock.anHourAgo),
        configuration: SyncConfiguration = Device.configuration, pokes: (any PokeSource)? = nil,
        accessToken: String = Credentials.unusedToken, schema: AppSchema = GeneratedSchema.app
    ) throws {
        self.name = name
        self.user = user
        self.clock = clock
        file = TemporaryFile(Self.temporaryPath(name))
        store = try SyncStore(
            path: file.path, schema: schema,
            userID: user, deviceID: name, wallClock: clock.read
        )
        engine = SyncEngine(store: store, transport: transport, configuration: configuration, pokes: pokes) {
            Credentials(userID: user, accessToken: accessToken)
        }
    }

    /// The generated list without the functions it names: a device of an earlier build.
    static let tablesOnly = AppSchema(
        tables: GeneratedSchema.tables.map { table in
            TableSchema(
                name: table.name, columns: table.columns, primaryKey: table.primaryKey, conflict: table.conflict,
                ordering: table.ordering, openRowRule: table.openRowRule)
        }, migrations: GeneratedSchema.migrations)

    /// Tests never wait for real: the engine's schedule is driven by `syncNow()` or a test's sleeper.
    static var configuration: SyncConfiguration {
        var configuration = SyncConfiguration()
        configuration.sleep = { _ in try await Task.sleep(for: .seconds(3_600)) }
        return configuration
    }

    @discardableResult
    func sync() async throws -> SyncReport {
        try await engine.syncNow()
    }

    /// Every row of `table` on this device, by id, with every column.
    func rows(of table: TableSchema) throws -> [String: ColumnValues] {
        let rows = try store.read { try $0.rowValues(of: table.name) }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["id"]?.text ?? "", $0) })
    }

    func dirtyCount() throws -> Int {
        try store.read { try $0.dirtyCount() }
    }

    private static func temporaryPath(_ name: String) -> String {
        let shared = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let root = FileManager.default.isWritableFile(atPath: shared.path) ? shared : FileManager.default.temporaryDirectory
        let directory = root.appendingPathComponent("sync-end-to-end-tests", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite").path
    }
}

/// A database file removed (with its WAL) once the last device holding it is gone.
private final class TemporaryFile: Sendable {
    let path: String

    init(_ path: String) {
        self.path = path
    }

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
