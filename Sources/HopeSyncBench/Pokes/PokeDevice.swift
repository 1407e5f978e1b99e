import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport

/// One device of the pokes benchmark: its own SQLite file and engine on the real schedule (real
/// sleeps), reaching PostgreSQL through a transport that counts its requests, and hearing pokes
/// or not.
struct PokeDevice {
    let name: String
    let store: SyncStore
    let engine: SyncEngine
    let requests: CountedRequests

    init(
        _ name: String, user: UUID, token: String, transport: any SyncTransport, pokes: (any PokeSource)?, directory: URL
    ) throws {
        self.name = name
        store = try SyncStore(
            path: Scratch.databasePath("bench-pokes-\(name)", in: directory), schema: GeneratedSchema.app, userID: user, deviceID: name)
        requests = CountedRequests(forwardee: transport)
        engine = SyncEngine(store: store, transport: requests, pokes: pokes) { Credentials(userID: user, accessToken: token) }
    }

    /// Milliseconds from the start of a save of an activity named `name` on this device to its
    /// commit on `reader`, which an observation of the reader's store sees.
    func save(_ name: String, appliedOn reader: PokeDevice, giveUpAfter limit: Duration = .seconds(120)) async throws -> Double {
        let seen = reader.store.observe { try $0.fetchAll(Activity.self).contains { $0.name == name } }
        let start = DispatchTime.now().uptimeNanoseconds
        try await store.write { _ = try $0.save(Activity(name: name)) }
        let watch = Task {
            for try await applied in seen where applied { return true }
            return false
        }
        let guardTask = Task {
            try await Task.sleep(for: limit)
            watch.cancel()
        }
        defer { guardTask.cancel() }
        guard try await watch.value else { throw PokeBenchmark.Failure("\(name) never reached \(reader.name)") }
        return Measure.since(start) * 1e3
    }
}

/// Passes every request on and counts them: pulls (table by table or through the pull
/// function), upserts (announced or not), guarded updates and fetches alike.
final class CountedRequests: ForwardingTransport, Sendable {
    let forwardee: any SyncTransport
    private let count = Locked(0)

    init(forwardee: any SyncTransport) {
        self.forwardee = forwardee
    }

    var total: Int { count.value }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        count.withLock { $0 += 1 }
        return try await forwardee.upsert(rows, into: table, as: user)
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials, announcingPokes: Bool) async throws(SyncError)
        -> UpsertedRows
    {
        count.withLock { $0 += 1 }
        return try await forwardee.upsert(rows, into: table, as: user, announcingPokes: announcingPokes)
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        count.withLock { $0 += 1 }
        return try await forwardee.pull(table, after: cursor, limit: limit, as: user)
    }

    func pull(_ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials) async throws(SyncError)
        -> PulledTables
    {
        count.withLock { $0 += 1 }
        return try await forwardee.pull(cursors, since: mark, limit: limit, function: function, as: user)
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        count.withLock { $0 += 1 }
        return try await forwardee.guardedUpdate(
            table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
    }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
        count.withLock { $0 += 1 }
        return try await forwardee.fetch(table, ids: ids, columns: columns, as: user)
    }
}
