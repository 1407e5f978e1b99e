import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting

/// Who is signed in, changeable mid-test.
final class SignIn: Sendable {
    private let current: Locked<Credentials?>

    init(_ user: UUID?) {
        current = Locked(user.map { Credentials(userID: $0, accessToken: "token-\($0.uuidString.lowercased())") })
    }

    var credentials: Credentials? {
        get { current.value }
        set { current.value = newValue }
    }

    var provider: @Sendable () async -> Credentials? { { self.credentials } }
}

/// One device of one user: its own database file, engine and clock.
struct TestDevice: Sendable {
    let path: String
    let user: UUID
    let deviceID: String
    let schema: AppSchema
    let transport: any SyncTransport
    let clock: ManualClock
    let signIn: SignIn
    let configuration: SyncConfiguration
    let pokes: (any PokeSource)?
    let store: SyncStore
    let engine: SyncEngine

    init(
        _ deviceID: String,
        user: UUID,
        transport: any SyncTransport,
        schema: AppSchema = HopeFixture.app(),
        clock: ManualClock = ManualClock(),
        signIn: SignIn? = nil,
        configuration: SyncConfiguration = TestDevice.configuration,
        pokes: (any PokeSource)? = nil,
        path: String? = nil
    ) throws {
        self.path = path ?? TestDevice.temporaryPath(deviceID)
        self.user = user
        self.deviceID = deviceID
        self.schema = schema
        self.transport = transport
        self.clock = clock
        self.signIn = signIn ?? SignIn(user)
        self.configuration = configuration
        self.pokes = pokes
        store = try SyncStore(path: self.path, schema: schema, userID: user, deviceID: deviceID, wallClock: clock.read)
        engine = SyncEngine(
            store: store, transport: transport, configuration: configuration, pokes: pokes, credentials: self.signIn.provider)
    }

    /// The app quits and launches again: same file, new store and engine.
    func restarted() throws -> TestDevice {
        store.close()
        return try TestDevice(
            deviceID, user: user, transport: transport, schema: schema, clock: clock, signIn: signIn,
            configuration: configuration, pokes: pokes, path: path
        )
    }

    @discardableResult
    func sync() async throws -> SyncReport {
        try await engine.syncNow()
    }

    func sessions(includingDeleted: Bool = true) throws -> [Session] {
        try store.read { try $0.fetchAll(Session.self, orderBy: "id", includingDeleted: includingDeleted) }
    }

    func dirtyCount() throws -> Int {
        try store.read { try $0.dirtyCount() }
    }

    /// Tests never sleep for real: the schedule's waits return at once unless a test says otherwise.
    static var configuration: SyncConfiguration {
        var configuration = SyncConfiguration()
        configuration.sleep = { _ in try await Task.sleep(for: .seconds(3_600)) }
        return configuration
    }

    static func temporaryPath(_ name: String) -> String {
        directory.appendingPathComponent("\(name)-\(UUID().uuidString).sqlite").path
    }

    /// A memory-backed directory where there is one (the tests need files, not fsyncs), cleared
    /// of what earlier runs left behind.
    private static let directory: URL = {
        let shared = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let root = FileManager.default.isWritableFile(atPath: shared.path) ? shared : FileManager.default.temporaryDirectory
        let directory = root.appendingPathComponent("sync-runtime-tests", isDirectory: true)
        let stale = Date().addingTimeInterval(-600)
        for file in (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.contentModificationDateKey]))
            ?? []
        where ((try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast) < stale {
            try? FileManager.default.removeItem(at: file)
        }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }()
}

/// A transport that runs a hook around each push (an upsert) and
/// each pull (a table's, or the pull function's of every table), to act while one is in flight.
struct HookedTransport: ForwardingTransport {
    let base: InMemoryServer
    let beforeUpsert: @Sendable () async -> Void
    var afterUpsert: @Sendable () async -> Void = {}
    var recordUpsert: @Sendable (Int) -> Void = { _ in }
    var beforePull: @Sendable () async -> Void = {}
    var afterPull: @Sendable () async -> Void = {}

    var forwardee: any SyncTransport { base }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        recordUpsert(rows.count)
        await beforeUpsert()
        let answer = try await base.upsert(rows, into: table, as: user)
        await afterUpsert()
        return answer
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        await beforePull()
        let page = try await base.pull(table, after: cursor, limit: limit, as: user)
        await afterPull()
        return page
    }

    func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        await beforePull()
        let answer = try await base.pull(cursors, since: mark, limit: limit, function: function, as: user)
        await afterPull()
        return answer
    }
}

extension InMemoryServer {
    static func hope(sessionOrdering: PullOrdering = .exact) -> InMemoryServer {
        InMemoryServer(tables: HopeFixture.app(sessionOrdering: sessionOrdering).tables)
    }
}

/// The rows a device holds, comparable with the server's: every column, by id.
func localRows(_ device: TestDevice, _ table: TableSchema) throws -> [String: ColumnValues] {
    let rows = try device.store.read { try $0.rowValues(of: table.name) }
    return Dictionary(uniqueKeysWithValues: rows.map { ($0["id"].flatMap(\.text) ?? "", $0) })
}
