import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport

/// `bench observe`: a UI-like read (the 50 newest sessions) repeated every 2 ms, and a local
/// write (a new task list) every 20 ms, each on its own thread, while the engine pulls 100k
/// sessions in pages of 1,000 into an empty store, against the same read and write on the same
/// store once it is idle. Two observers watch during the pull: the same 50 sessions (re-runs per
/// page: at most 1) and the activities, which the pull does not touch (none). Pages come from memory, built beforehand, so the pull is the store's work alone.
/// Three rounds, a fresh store each; each figure is the median round. The runtime's public API
/// only, so the benchmark also builds against an older runtime.
enum ReadsDuringSync {
    static let rows = 100_000
    static let pageSize = 1_000

    /// One round: the pull alone, then the pull with the reads and observers, then the idle reads.
    struct Round {
        var idle = Latencies([])
        var syncing = Latencies([])
        var idleWrites = Latencies([])
        var syncingWrites = Latencies([])
        var pages = 0
        var sessionRunsPerPage = 0.0
        var activityRunsPerPage = 0.0
        var aloneRowsPerSecond = 0.0
        var observedRowsPerSecond = 0.0
    }

    static func run() async throws -> [Figure] {
        let sessions = SessionRows(keys: .random)
        let pages = ServedPages(
            stride(from: 0, to: rows, by: pageSize).map { sessions.page($0..<min($0 + pageSize, rows)) }, of: Session.table)
        print("Reads and observers during an initial sync: \(rows) sessions pulled in pages of \(pageSize); medians of 3 rounds\n")
        var rounds: [Round] = []
        for _ in 0..<3 { rounds.append(try await round(pages)) }
        func median(_ value: (Round) -> Double) -> Double { Measure.median(rounds.map(value)) }

        // Latencies are in seconds, printed in ms.
        let (idle50, idle99) = (median(\.idle.p50) * 1e3, median(\.idle.p99) * 1e3)
        let (sync50, sync99) = (median(\.syncing.p50) * 1e3, median(\.syncing.p99) * 1e3)
        print("50 newest sessions            p50 ms   p99 ms   reads")
        print(String(format: "  idle store (100k rows)    %7.3f  %7.3f  %6.0f", idle50, idle99, median { Double($0.idle.count) }))
        print(String(format: "  during the initial sync   %7.3f  %7.3f  %6.0f", sync50, sync99, median { Double($0.syncing.count) }))
        print(String(format: "  ratio sync / idle         %7.2f  %7.2f", sync50 / idle50, sync99 / idle99))
        let (idleWrite99, syncWrite99) = (median(\.idleWrites.p99) * 1e3, median(\.syncingWrites.p99) * 1e3)
        print("a local write (new task list)  p50 ms   p99 ms  writes")
        print(
            String(
                format: "  idle store (100k rows)    %7.3f  %7.3f  %6.0f", median(\.idleWrites.p50) * 1e3, idleWrite99,
                median { Double($0.idleWrites.count) }))
        print(
            String(
                format: "  during the initial sync   %7.3f  %7.3f  %6.0f", median(\.syncingWrites.p50) * 1e3, syncWrite99,
                median { Double($0.syncingWrites.count) }))
        print("")
        let (synced, untouched) = (median(\.sessionRunsPerPage), median(\.activityRunsPerPage))
        print(String(format: "observer re-runs per page (%.0f pages)", median { Double($0.pages) }))
        print(String(format: "  sessions (the synced table)   %.2f", synced))
        print(String(format: "  activities (untouched)        %.2f", untouched))
        print("")
        let (alone, observed) = (median(\.aloneRowsPerSecond), median(\.observedRowsPerSecond))
        print("initial sync rows/s")
        print(String(format: "  alone                         %8.0f", alone))
        print(String(format: "  with the reads and observers  %8.0f  ratio %.2f", observed, observed / alone))
        return [
            Figure("observe.read_p50_sync_over_idle", sync50 / idle50, aim: nil),
            Figure("observe.read_p99_sync_over_idle", sync99 / idle99, aim: nil),
            // What a tap that saves waits for while a first sync holds the writer (a page, a commit).
            Figure("observe.write_p99_ms_during_sync", syncWrite99, aim: 100),
            Figure("observe.synced_runs_per_page", synced, aim: 1),
            Figure("observe.untouched_runs_per_page", untouched, aim: 0),
            Figure("observe.sync_with_observers_over_alone", observed / alone, aim: nil),
        ]
    }

    /// The UI's read: `LIMIT` rides on the ORDER BY, which the reader appends last.
    @Sendable static func newest(_ reader: StoreReader) throws -> [Session] {
        try reader.fetchAll(Session.self, orderBy: "started_ms DESC LIMIT 50")
    }

    static func round(_ pages: ServedPages) async throws -> Round {
        var round = Round()
        let alone = try temporaryStore()
        defer { remove(alone) }
        round.aloneRowsPerSecond = Double(rows) / (try await pull(pages, into: alone))
        alone.close()

        let store = try temporaryStore()
        defer { remove(store) }
        let (sessionRuns, activityRuns) = (Locked(0), Locked(0))
        let sessions = observeCounting(store, sessionRuns, newest)
        let activities = observeCounting(store, activityRuns) { try $0.fetchCount(Activity.self) }
        let (reads, writes) = (TimedLoop(every: 2_000) { _ = try store.read(newest) }, TimedLoop(every: 20_000) { try save(store) })
        let seconds = try await pull(pages, into: store)
        round.syncing = Latencies(reads.stop())
        round.syncingWrites = Latencies(writes.stop())
        round.observedRowsPerSecond = Double(rows) / seconds
        round.pages = (rows + pageSize - 1) / pageSize
        // The observers may still be fetching the last page: counted once they settle.
        try await Task.sleep(for: .milliseconds(200))
        round.sessionRunsPerPage = Double(sessionRuns.value - 1) / Double(round.pages)
        round.activityRunsPerPage = Double(activityRuns.value - 1) / Double(round.pages)
        sessions.cancel()
        activities.cancel()

        let (idleReads, idleWrites) = (TimedLoop(every: 2_000) { _ = try store.read(newest) }, TimedLoop(every: 20_000) { try save(store) })
        try await Task.sleep(for: .seconds(1))
        round.idle = Latencies(idleReads.stop())
        round.idleWrites = Latencies(idleWrites.stop())
        store.close()
        return round
    }

    /// The UI's write: a new task list (a table nobody observes here).
    @Sendable static func save(_ store: SyncStore) throws {
        try store.write { _ = try $0.save(TaskList(name: "Errands")) }
    }

    /// The seconds `syncNow()` takes to pull every page into `store`.
    static func pull(_ pages: ServedPages, into store: SyncStore) async throws -> Double {
        let credentials = Credentials(userID: SessionRows.user, accessToken: "token")
        let engine = SyncEngine(store: store, transport: pages, credentials: { credentials })
        var pulled = 0
        let seconds = try await Measure.secondsAsync { pulled = try await engine.syncNow().pulled }
        guard pulled == rows else { throw BenchmarkError("pulled \(pulled) of \(rows)") }
        return seconds
    }

    /// Observes `query`, counting its runs, until the task is cancelled.
    static func observeCounting<T: Sendable & Equatable>(
        _ store: SyncStore, _ runs: Locked<Int>, _ query: @escaping @Sendable (StoreReader) throws -> T
    ) -> Task<Void, any Error> {
        let stream = store.observe { reader in
            runs.withLock { $0 += 1 }
            return try query(reader)
        }
        return Task { for try await _ in stream {} }
    }

    static func temporaryStore() throws -> SyncStore {
        try SyncStore(path: Scratch.databasePath("bench-observe"), schema: GeneratedSchema.app, userID: SessionRows.user, deviceID: "bench")
    }

    /// Not unlinked while open: reader connections open the file by its path.
    static func remove(_ store: SyncStore) {
        store.close()
        Scratch.removeDatabase(store.path)
    }
}

/// `body` every `microseconds` on a thread of its own, each run timed (seconds), until stopped.
private final class TimedLoop: Sendable {
    private let state = Locked((samples: [Double](), stopped: false))
    private let done = DispatchSemaphore(value: 0)

    init(every microseconds: UInt32, _ body: @escaping @Sendable () throws -> Void) {
        Thread.detachNewThread { [self] in
            while !state.value.stopped {
                let start = DispatchTime.now().uptimeNanoseconds
                try? body()
                let seconds = Measure.since(start)
                state.withLock { $0.samples.append(seconds) }
                usleep(microseconds)
            }
            done.signal()
        }
    }

    func stop() -> [Double] {
        state.withLock { $0.stopped = true }
        done.wait()
        return state.value.samples
    }
}
