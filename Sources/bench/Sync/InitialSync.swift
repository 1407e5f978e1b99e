import Foundation
import HopeSchema
import SyncPostgres
import SyncRuntime
import SyncTestSupport

/// `bench sync`, on a throwaway PostgreSQL 15 with the generated schema.sql: the initial sync of
/// 100k session rows into an empty device through PostgresTransport, its time split into the
/// server's query, decode and local apply, beside raw SQLite upserting the same rows in the same
/// directory (and PowerSync's published Flutter desktop figure); then idle polls (``IdlePolls``).
enum InitialSync {
    static let user = UUID(uuidString: "0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2b")!
    static let credentials = Credentials(userID: user, accessToken: "unused")
    static let sessions = 100_000
    static let smallTables = [(table: "activities", rows: 20), (table: "tasks", rows: 200), (table: "task_lists", rows: 10)]
    static let powerSyncRowsPerSecond = 27_600.0

    /// One run's figures.
    struct Result {
        let device: (store: SyncStore, engine: SyncEngine)
        let rows: Int
        let seconds: Double
        let query: Double
        let decode: Double
        /// The engine's time outside the transport's pulls: applying pages locally (the push
        /// that finds nothing, and cursor reads, are in here too).
        let apply: Double
        let other: Double
        let peakMiB: Double
        /// This process's CPU time during the sync: the wall time on a shared machine also holds
        /// waits for a core, and the server's time.
        let cpuSeconds: Double
        /// Resident memory before, after the first 10k rows, at the most and at the end: flat when
        /// the pull holds only the pages it fetched ahead, whatever the table's size.
        let memoryBefore: Double
        let memory: PullWatch.Memory

        var rowsPerSecond: Double { Double(rows) / seconds }

        func line(_ label: String) -> String {
            func share(_ part: Double) -> String { String(format: "%5.0f%%", 100 * part / seconds) }
            return label.padded(12) + String(format: " %8d  %9.3f  %7.0f", rows, seconds, rowsPerSecond)
                + "  " + [query, decode, apply, other].map(share).joined(separator: "  ")
                + String(format: "  %9.1f  %12.3f  %10.0f", peakMiB, cpuSeconds, Double(rows) / cpuSeconds)
        }
    }

    static func run() async throws -> [Figure] {
        let cluster = try BenchCluster.start()
        let places = [("disk", false), ("memory", true)].compactMap { place, inMemory in
            Scratch.directory("hope-sync-bench", inMemory: inMemory).map { (place: place, directory: $0) }
        }
        defer {
            cluster.stop()
            for place in places { try? FileManager.default.removeItem(at: place.directory) }
        }
        let database = try cluster.createDatabase("bench", generatedSchema: true)
        print(
            "Initial sync: PostgreSQL 15 on this machine over TCP 127.0.0.1, PostgresTransport, pages of 1000 rows; release build figures only\n"
        )
        let loadSeconds = try Measure.seconds { try load(database) }
        print(
            "loaded \(sessions) sessions + \(smallTables.map { "\($0.rows) \($0.table)" }.joined(separator: " + ")) server-side in "
                + "\(Measure.format(loadSeconds, digits: 2)) s (triggers on)\n")

        // The baseline: raw SQLite upserting the same session rows (already in memory, as values:
        // as the device receives them) into an empty file beside the device's, one prepared
        // statement, one transaction.
        let pages = try await PostgresTransport(url: database.url).pullAll(Session.table, as: credentials)
        let rawRows = pages.flatMap(\.rows).map(RawSQLite.values)
        print("initial sync     rows    seconds   rows/s   query  decode  apply  other   peak MiB  client CPU s  rows/CPU s")
        // The device's file on this machine's disk, then (where there is one) in memory: the gap
        // is the local database's I/O waits (WAL writes and checkpoints) on the disk.
        var medians: [(place: String, sync: Result, raw: Double)] = []
        for (place, directory) in places {
            var runs: [Result] = []
            var raw: [Double] = []
            for run in 1...3 {
                let rawSeconds = try RawSQLite.upsertSessions(rawRows, in: directory)
                raw.append(Double(rawRows.count) / rawSeconds)
                print("\(place) \(run) raw".padded(12) + String(format: " %8d  %9.3f  %7.0f", rawRows.count, rawSeconds, raw.last!))
                runs.append(try await initialSync(database, ordering: .exact, name: "exact-\(run)", directory: directory))
                print(runs.last!.line("\(place) \(run)"))
            }
            medians.append((place, runs.sorted { $0.seconds < $1.seconds }[1], Measure.median(raw)))
        }
        var figures: [Figure] = []
        for (place, sync, raw) in medians {
            let (memory, rate) = (sync.memory, sync.rowsPerSecond)
            func format(_ value: Double, _ digits: Int = 0) -> String { Measure.format(value, digits: digits) }
            print(
                """
                device file on \(place): resident memory \(format(sync.memoryBefore, 1)) MiB before, \(format(memory.at10k, 1)) MiB after \
                10k rows, \(format(memory.most, 1)) MiB at most, \(format(memory.atEnd, 1)) MiB after \(sync.rows) rows
                device file on \(place): initial sync \(format(rate)) rows/s, raw SQLite upsert \(format(raw)) rows/s: ratio \
                \(format(rate / raw, 2)) (aim 0.8)
                PowerSync Flutter desktop (published): \(format(powerSyncRowsPerSecond)) rows/s; this, device file on \(place): \
                \(format(rate)) rows/s (median run), ratio \(format(rate / powerSyncRowsPerSecond, 2)); target 50000
                """)
            figures.append(Figure("sync.\(place)_over_raw", rate / raw, aim: 0.8))
            if place == "disk" {
                figures.append(Figure("sync.disk_rows_per_s", rate, aim: 50_000, digits: 0))
                figures.append(Figure("sync.peak_extra_mib", memory.most - sync.memoryBefore, aim: nil, digits: 1))
            }
        }
        print("(query: begin to commit, the rows as text in libpq; decode: text to values; apply: the engine's local writes and cursor)")

        let lookback = try await initialSync(database, ordering: .lookback(50), name: "lookback", directory: places[0].directory)
        return figures + (try await IdlePolls.run(database, exact: medians[0].sync.device, lookback: lookback.device))
    }

    /// Rows made by the server itself (generate_series), through the real triggers: the small
    /// tables first, then the sessions, so each table's rows are one run of server_seq.
    static func load(_ database: BenchDatabase) throws {
        let owner = "'\(user.uuidString.lowercased())'::uuid"
        let (id, userID, updated, device) = (ReservedColumn.id, ReservedColumn.owner, ReservedColumn.updatedMs, ReservedColumn.deviceId)
        try database.admin.execute(
            script: """
                insert into public.activities (\(id), \(userID), name, metadata, \(updated), \(device))
                  select gen_random_uuid(), \(owner), 'Activity ' || n, jsonb_build_object('n', n), 1, 'bench' from generate_series(1, 20) n;
                insert into public.sessions (\(id), \(userID), activity_id, started_ms, ended_ms, note, source, \(updated), \(device))
                  select gen_random_uuid(), \(owner), gen_random_uuid(), 1700000000000 + n * 60000, 1700000000000 + n * 60000 + 30000,
                    case when n % 3 = 0 then 'note ' || n end, (array['desktop', 'phone', 'watch'])[1 + n % 3], 1700000000000 + n, 'bench'
                  from generate_series(1::bigint, \(sessions)) n;
                insert into public.tasks (\(id), \(userID), title, due_at)
                  select gen_random_uuid(), \(owner), 'Task ' || n, now() + n * interval '1 hour' from generate_series(1, 200) n;
                insert into public.task_lists (\(id), \(userID), name, icon)
                  select gen_random_uuid(), \(owner), 'List ' || n, '\\x00ff10'::bytea from generate_series(1, 10) n;
                analyze;
                """)
    }

    /// An empty device's first sync, timed in parts.
    static func initialSync(_ database: BenchDatabase, ordering: PullOrdering, name: String, directory: URL) async throws -> Result {
        let timings = RequestTimings()
        let pulls = PullWatch()
        let transport = WatchedTransport(base: PostgresTransport(configuration: .init(url: database.url, timings: timings))) {
            pulls.record($0)
        }
        let tables = GeneratedSchema.tables.map {
            TableSchema(
                name: $0.name, columns: $0.columns, primaryKey: $0.primaryKey, conflict: $0.conflict, ordering: ordering,
                openRowRule: $0.openRowRule)
        }
        let store = try SyncStore(
            path: Scratch.databasePath("bench-sync-\(name)", in: directory),
            schema: AppSchema(tables: tables, migrations: GeneratedSchema.migrations), userID: user, deviceID: name)
        let engine = SyncEngine(store: store, transport: transport) { credentials }
        var report = SyncReport()
        let memoryBefore = Measure.residentMemoryMiB() ?? 0
        let cpuBefore = Measure.cpuSeconds()
        let seconds = try await Measure.secondsAsync { report = try await engine.syncNow() }
        let cpuSeconds = Measure.cpuSeconds() - cpuBefore
        let pulling = pulls.seconds
        let decode = timings.seconds(.decode)
        let query = timings.seconds(.query) - decode // a page is decoded inside its request
        return Result(
            device: (store, engine), rows: report.pulled, seconds: seconds, query: query, decode: decode, apply: seconds - pulling,
            other: pulling - query - decode, peakMiB: Measure.peakMemoryMiB() ?? 0, cpuSeconds: cpuSeconds, memoryBefore: memoryBefore,
            memory: pulls.memory)
    }
}

/// The time spent inside a transport's pulls (query, decode and the hops between), and the
/// resident memory as the rows arrived, one sample a page.
final class PullWatch: Sendable {
    struct Memory {
        var at10k = 0.0
        var most = 0.0
        var atEnd = 0.0
    }

    private let state = Locked((nanoseconds: UInt64(0), rows: 0, memory: Memory()))

    func record(_ request: WatchedRequest) {
        guard request.kind == .pull, case .success(let rows) = request.outcome else { return }
        let resident = Measure.residentMemoryMiB() ?? 0
        state.withLock { state in
            state.nanoseconds += request.end - request.start
            if state.rows < 10_000, state.rows + rows >= 10_000 { state.memory.at10k = resident }
            state.rows += rows
            state.memory.most = max(state.memory.most, resident)
            state.memory.atEnd = resident
        }
    }

    var seconds: Double { Double(state.value.nanoseconds) / 1e9 }
    var memory: Memory { state.value.memory }
}
