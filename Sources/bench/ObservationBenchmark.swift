import Foundation
import HopeSchema
import SyncRuntime

/// Issue 13's observation benchmark. A UI-like read (the 50 newest sessions) repeated every
/// 2 ms on its own thread while the engine pulls 100k sessions in pages of 1,000 into an empty
/// store, against the same read on the same store once it is idle. Two observers watch during
/// the pull: the same 50 sessions (re-runs per page: at most 1) and the activities, which the
/// pull does not touch (should be 0). Pages come from memory, built beforehand, so the pull is
/// the store's work alone. Three rounds, a fresh store each; each figure is the median round.
/// Only public API: the same file measures the code before this change.
func runObservationBenchmark() async throws {
    let rows = 100_000
    let transport = MemoryPages(rows: rows)
    print("Observation benchmark (issue 13): \(rows) sessions pulled in pages of \(MemoryPages.pageSize); medians of 3 rounds\n")
    var rounds: [ObservationRound] = []
    for _ in 0..<3 { rounds.append(try await ObservationRound.run(transport, rows: rows)) }
    func median(_ value: (ObservationRound) -> Double) -> Double { Measure.median(rounds.map(value)) }

    let (idle50, idle99) = (median(\.idle.p50), median(\.idle.p99))
    let (sync50, sync99) = (median(\.syncing.p50), median(\.syncing.p99))
    print("50 newest sessions            p50 ms   p99 ms   reads")
    print(String(format: "  idle store (100k rows)    %7.3f  %7.3f  %6.0f", idle50, idle99, median { Double($0.idle.count) }))
    print(String(format: "  during the initial sync   %7.3f  %7.3f  %6.0f", sync50, sync99, median { Double($0.syncing.count) }))
    print(String(format: "  ratio sync / idle         %7.2f  %7.2f", sync50 / idle50, sync99 / idle99))
    print("")
    let pages = median { Double($0.pages) }
    print(String(format: "observer re-runs per page (%.0f pages)", pages))
    print(String(format: "  sessions (the synced table)   %.2f", median(\.sessionRunsPerPage)))
    print(String(format: "  activities (untouched)        %.2f", median(\.activityRunsPerPage)))
    print("")
    let (alone, observed) = (median(\.aloneRowsPerSecond), median(\.observedRowsPerSecond))
    print("initial sync rows/s")
    print(String(format: "  alone                         %8.0f", alone))
    print(String(format: "  with the reads and observers  %8.0f  ratio %.2f", observed, observed / alone))
}

/// One round: the pull alone, then the pull with the reads and observers, then the idle reads.
private struct ObservationRound {
    struct Latencies {
        var samples: [Double]
        var count: Int { samples.count }
        var p50: Double { percentile(0.50) }
        var p99: Double { percentile(0.99) }

        func percentile(_ fraction: Double) -> Double {
            let sorted = samples.sorted()
            guard !sorted.isEmpty else { return .nan }
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
        }
    }

    var idle = Latencies(samples: [])
    var syncing = Latencies(samples: [])
    var pages = 0
    var sessionRunsPerPage = 0.0
    var activityRunsPerPage = 0.0
    var aloneRowsPerSecond = 0.0
    var observedRowsPerSecond = 0.0

    static let user = UUID(uuidString: "6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7")!

    /// The UI's read: `LIMIT` rides on the ORDER BY, which the reader appends last.
    @Sendable static func newest(_ reader: StoreReader) throws -> [Session] {
        try reader.fetchAll(Session.self, orderBy: "started_ms DESC LIMIT 50")
    }

    static func run(_ transport: MemoryPages, rows: Int) async throws -> ObservationRound {
        var round = ObservationRound()
        let alone = try temporaryStore()
        defer { remove(alone) }
        round.aloneRowsPerSecond = Double(rows) / (try await pull(transport, rows: rows, into: alone).seconds)
        alone.close()

        let store = try temporaryStore()
        defer { remove(store) }
        let (sessionRuns, activityRuns) = (Counter(), Counter())
        let sessions = observeCounting(store, sessionRuns, newest)
        let activities = observeCounting(store, activityRuns) { try $0.fetchCount(Activity.self) }
        let reads = ReadLoop(store)
        let (seconds, pages) = try await pull(transport, rows: rows, into: store)
        round.syncing = Latencies(samples: reads.stop())
        round.observedRowsPerSecond = Double(rows) / seconds
        round.pages = pages
        // The observers may still be fetching the last page: counted once they settle.
        try await Task.sleep(for: .milliseconds(200))
        round.sessionRunsPerPage = Double(sessionRuns.value - 1) / Double(pages)
        round.activityRunsPerPage = Double(activityRuns.value - 1) / Double(pages)
        sessions.cancel()
        activities.cancel()

        let idle = ReadLoop(store)
        try await Task.sleep(for: .seconds(1))
        round.idle = Latencies(samples: idle.stop())
        store.close()
        return round
    }

    static func pull(_ transport: MemoryPages, rows: Int, into store: SyncStore) async throws -> (seconds: Double, pages: Int) {
        let credentials = Credentials(userID: user, accessToken: "token")
        let engine = SyncEngine(store: store, transport: transport, credentials: { credentials })
        var pulled = 0
        let seconds = try await Measure.secondsAsync { pulled = try await engine.syncNow().pulled }
        guard pulled == rows else { throw SyncError(.configuration, "pulled \(pulled) of \(rows)") }
        return (seconds, (rows + MemoryPages.pageSize - 1) / MemoryPages.pageSize)
    }

    /// Observes `query`, counting its runs, until the task is cancelled.
    static func observeCounting<T: Sendable & Equatable>(
        _ store: SyncStore, _ runs: Counter, _ query: @escaping @Sendable (StoreReader) throws -> T
    ) -> Task<Void, any Error> {
        let stream = store.observe { reader in
            runs.increment()
            return try query(reader)
        }
        return Task { for try await _ in stream {} }
    }

    static func temporaryStore() throws -> SyncStore {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-observe-\(UUID().uuidString).sqlite").path
        return try SyncStore(path: path, schema: GeneratedSchema.app, userID: user, deviceID: "bench")
    }

    /// Not unlinked while open: reader connections open the file by its path.
    static func remove(_ store: SyncStore) {
        store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
    }
}

/// The UI's read every 2 ms on a thread of its own, each one timed, until stopped.
private final class ReadLoop: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [Double] = []
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(_ store: SyncStore) {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ stopped }) {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try? store.read(ObservationRound.newest)
                let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                lock.withLock { samples.append(milliseconds) }
                usleep(2_000)
            }
            done.signal()
        }
    }

    func stop() -> [Double] {
        lock.withLock { stopped = true }
        done.wait()
        return lock.withLock { samples }
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// `rows` sessions as the server sends them, built once and served from memory by cursor;
/// every other table is empty.
private struct MemoryPages: SyncTransport {
    static let pageSize = 1_000
    let pages: [Int64: PulledPage]

    init(rows count: Int) {
        let base: Int64 = 1_800_000_000_000
        let user = ObservationRound.user.uuidString.lowercased()
        let activities = (0..<20).map { _ in UUID().uuidString.lowercased() }
        let sources = ["desktop", "phone", "watch"]
        let columns = Session.table.columnNames
        let stamped = ["activity_id", "deleted_ms", "ended_ms", "note", "source", "started_ms"]
        var pages: [Int64: PulledPage] = [:]
        for start in stride(from: 0, to: count, by: Self.pageSize) {
            let rows = (start..<min(start + Self.pageSize, count)).map { index -> ColumnValues in
                let started = base + Int64(index) * 60_000
                let stamp = "\"00\(base + Int64(index)):server-device\""
                let stamps = "{" + stamped.map { "\"\($0)\":\(stamp)" }.joined(separator: ",") + "}"
                let values: [String: SyncValue] = [
                    "id": .text(UUID().uuidString.lowercased()), "user_id": .text(user), "activity_id": .text(activities[index % 20]),
                    "started_ms": .int(started), "ended_ms": .int(started + 30_000),
                    "note": index % 3 == 0 ? .text("note \(index)") : .null,
                    "source": .text(sources[index % 3]), "updated_ms": .int(base + Int64(index)), "deleted_ms": .null,
                    "device_id": .text("server-device"), "column_stamps": .text(stamps), "server_seq": .int(Int64(index + 1)),
                ]
                return ColumnValues(columns: columns, values: columns.map { values[$0] ?? .null })
            }
            pages[Int64(start)] = PulledPage(rows: rows, receivedCount: rows.count, lastServerSeq: Int64(start + rows.count))
        }
        self.pages = pages
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        guard table.name == Session.table.name, let page = pages[cursor] else {
            return PulledPage(rows: [], receivedCount: 0, lastServerSeq: nil)
        }
        return page
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        UpsertedRows(rows: [])
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] { [] }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] { [] }
}
