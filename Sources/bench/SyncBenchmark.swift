import Foundation
import HopeSchema
import Postgres
import PostgresCluster
import SQLite
import SyncPostgres
import SyncRuntime

/// Issue 5's benchmarks, on a throwaway PostgreSQL 15 with the generated schema.sql:
/// (1) the initial sync of 100k session rows into an empty device through PostgresTransport,
/// with the time split into server query, decode and local apply, beside PowerSync's published
/// Flutter desktop figure; (2) an idle poll per table (nothing changed): rows and bytes sent with
/// a 50-row lookback against exact ordering, and the cost of an idle poll over all tables.
func runSyncBenchmark() async throws {
    let server = try SyncBenchmark.Server()
    defer {
        server.cluster.stop()
        for (_, directory) in SyncBenchmark.deviceDirectories { try? FileManager.default.removeItem(at: directory) }
    }
    let sessions = 100_000
    print(
        "Sync benchmark (issue 5): PostgreSQL 15 on this machine over TCP 127.0.0.1, PostgresTransport, pages of 1000 rows; release build figures only\n"
    )
    let loadSeconds = try Measure.seconds { try server.load(sessions: sessions) }
    print(
        "loaded \(sessions) sessions + \(SyncBenchmark.smallTables.map { "\($0.rows) \($0.table)" }.joined(separator: " + ")) server-side in \(Measure.format(loadSeconds, digits: 2)) s (triggers on)\n"
    )

    // The baseline, issue 13's: raw SQLite upserting the same session rows (already in memory,
    // as values) into an empty file beside the device's, one prepared statement, one transaction.
    let rawRows = try server.sessionRows()
    print("initial sync     rows    seconds   rows/s   query  decode  apply  other   peak MiB  client CPU s  rows/CPU s")
    // The device's file on this machine's disk, then (where there is one) in memory: the gap is
    // the local database's I/O waits (WAL writes and checkpoints) on this VM's disk.
    var medians: [SyncBenchmark.InitialSync] = []
    var rawMedians: [Double] = []
    for (place, directory) in SyncBenchmark.deviceDirectories {
        var runs: [SyncBenchmark.InitialSync] = []
        var raw: [Double] = []
        for run in 1...3 {
            let rawSeconds = try SyncBenchmark.rawUpsert(rawRows, directory: directory)
            raw.append(Double(rawRows.count) / rawSeconds)
            print(
                "\(place) \(run) raw".padding(toLength: 12, withPad: " ", startingAt: 0)
                    + String(format: " %8d  %9.3f  %7.0f", rawRows.count, rawSeconds, raw.last!))
            let result = try await SyncBenchmark.initialSync(server, ordering: .exact, name: "exact-\(run)", directory: directory)
            runs.append(result)
            print(result.line("\(place) \(run)"))
        }
        medians.append(runs.sorted { $0.seconds < $1.seconds }[1])
        rawMedians.append(Measure.median(raw))
    }
    for (median, place) in zip(medians, SyncBenchmark.deviceDirectories.map(\.place)) {
        print(
            String(
                format: "device file on %@: resident memory %.1f MiB after 10k rows, %.1f MiB after %d rows", place, median.memoryAt10k,
                median.memoryAtEnd, median.rows))
    }
    for ((median, raw), place) in zip(zip(medians, rawMedians), SyncBenchmark.deviceDirectories.map(\.place)) {
        print(
            String(
                format: "device file on %@: initial sync %.0f rows/s, raw SQLite upsert %.0f rows/s: ratio %.2f (aim 0.8)", place,
                median.rowsPerSecond, raw, median.rowsPerSecond / raw))
    }
    for (median, place) in zip(medians, SyncBenchmark.deviceDirectories.map(\.place)) {
        print(
            "PowerSync Flutter desktop (published): 27600 rows/s; this, device file on \(place): "
                + String(format: "%.0f rows/s (median run), ratio %.2f; target 50000", median.rowsPerSecond, median.rowsPerSecond / 27_600))
    }
    print("(query: begin to commit, the rows as text in libpq; decode: text to values; apply: the engine's local writes and cursor)")

    let lookback = try await SyncBenchmark.initialSync(
        server, ordering: .lookback(50), name: "lookback", directory: SyncBenchmark.deviceDirectories[0].directory)
    print("\nidle poll per table (nothing changed), a device at the head of every table:")
    print("table          exact rows  exact bytes  lookback-50 rows  lookback-50 bytes")
    for table in GeneratedSchema.tables {
        // The device has every row: its cursor is the table's largest server_seq.
        let cursor = Int64(try server.admin.execute("select max(server_seq) from public.\(table.name)").scalar ?? "") ?? 0
        let exact = try await server.idlePoll(table, after: cursor)
        let behind = try await server.idlePoll(table, after: max(0, cursor - 50))
        print(
            table.name.padding(toLength: 13, withPad: " ", startingAt: 0)
                + String(format: "  %10d  %11d  %16d  %17d", exact.rows, exact.bytes, behind.rows, behind.bytes))
    }
    print("(bytes: the body PostgREST would send, json_agg of the same select, measured on the server)")

    print(
        "\nidle poll cycle over all \(GeneratedSchema.tables.count) tables (engine.syncNow(): push finds nothing, one pull request per table), median of 50:"
    )
    let exactCycle = try await SyncBenchmark.idleCycle(medians[0].device)
    let lookbackCycle = try await SyncBenchmark.idleCycle(lookback.device)
    print(
        String(
            format: "exact: %.2f ms   lookback-50: %.2f ms (re-reading and re-applying the window every poll)", exactCycle * 1e3,
            lookbackCycle * 1e3))
}

enum SyncBenchmark {
    static let user = UUID(uuidString: "0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2b")!
    static let smallTables = [(table: "activities", rows: 20), (table: "tasks", rows: 200), (table: "task_lists", rows: 10)]

    /// A temporary cluster with the Supabase prelude and Generated/supabase/schema.sql.
    struct Server {
        let cluster: TemporaryCluster
        let url: String
        let admin: Connection

        init() throws {
            cluster = try TemporaryCluster()
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let schema = try String(contentsOf: root.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8)
            let postgres = try Connection(url: cluster.url())
            try postgres.execute(script: SupabasePrelude.roles)
            try postgres.execute("create database bench")
            url = cluster.url(database: "bench")
            admin = try Connection(url: url)
            try admin.execute(script: SupabasePrelude.database)
            try admin.execute(script: schema)
        }

        /// Rows made by the server itself (generate_series), through the real triggers: the
        /// small tables first, then the sessions, so each table's rows are one run of server_seq.
        func load(sessions: Int) throws {
            let owner = "'\(SyncBenchmark.user.uuidString.lowercased())'::uuid"
            try admin.execute(
                script: """
                    insert into public.activities (id, user_id, name, metadata, updated_ms, device_id)
                      select gen_random_uuid(), \(owner), 'Activity ' || n, jsonb_build_object('n', n), 1, 'bench' from generate_series(1, 20) n;
                    insert into public.sessions (id, user_id, activity_id, started_ms, ended_ms, note, source, updated_ms, device_id)
                      select gen_random_uuid(), \(owner), gen_random_uuid(), 1700000000000 + n * 60000, 1700000000000 + n * 60000 + 30000,
                        case when n % 3 = 0 then 'note ' || n end, (array['desktop', 'phone', 'watch'])[1 + n % 3], 1700000000000 + n, 'bench'
                      from generate_series(1::bigint, \(sessions)) n;
                    insert into public.tasks (id, user_id, title, due_at)
                      select gen_random_uuid(), \(owner), 'Task ' || n, now() + n * interval '1 hour' from generate_series(1, 200) n;
                    insert into public.task_lists (id, user_id, name, icon)
                      select gen_random_uuid(), \(owner), 'List ' || n, '\\x00ff10'::bytea from generate_series(1, 10) n;
                    analyze;
                    """)
        }

        /// Every session row as SQLite values, in table order, read once before any timing.
        func sessionRows() throws -> [[DatabaseValue]] {
            let columns = Session.table.columns
            let list = columns.map { "\"\($0.name)\"" }.joined(separator: ", ")
            return try admin.execute("select \(list) from public.sessions order by server_seq").rows.map { row in
                columns.indices.map { index in
                    guard let text = row[index] else { return .null }
                    switch columns[index].type {
                    case .int: return .integer(Int64(text) ?? 0)
                    case .bool: return .integer(text == "t" ? 1 : 0)
                    case .double: return .real(Double(text) ?? 0)
                    default: return .text(text)
                    }
                }
            }
        }

        /// One idle pull of `table` as the device sends it: the rows back, and the bytes of
        /// PostgREST's JSON body for the same rows.
        func idlePoll(_ table: TableSchema, after cursor: Int64) async throws -> (rows: Int, bytes: Int) {
            let transport = PostgresTransport(url: url)
            let page = try await transport.pull(table, after: cursor, limit: SyncConfiguration.serverRowCap, as: credentials)
            let columns = table.columnNames.map { "\"\($0)\"" }.joined(separator: ", ")
            let bytes = try admin.execute(
                """
                select octet_length(coalesce(json_agg(t)::text, '[]')) from
                  (select \(columns) from public.\(table.name) where user_id = $1 and server_seq > $2 order by server_seq limit $3) t
                """, [SyncBenchmark.user.uuidString, String(cursor), String(SyncConfiguration.serverRowCap)]
            ).scalar
            return (page.receivedCount, Int(bytes ?? "") ?? 0)
        }
    }

    static let credentials = Credentials(userID: user, accessToken: "unused")

    struct InitialSync {
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
        /// This process's CPU time (user and system) during the sync: the wall time on a
        /// shared machine also holds waits for a core, and the server's time.
        let cpuSeconds: Double

        /// Resident memory after the first 10k rows and at the end: flat when the pull holds only
        /// the pages it fetched ahead, whatever the table's size.
        let memoryAt10k: Double
        let memoryAtEnd: Double

        var rowsPerSecond: Double { Double(rows) / seconds }

        func line(_ label: String) -> String {
            func share(_ part: Double) -> String { String(format: "%5.0f%%", 100 * part / seconds) }
            return label.padding(toLength: 12, withPad: " ", startingAt: 0)
                + String(format: " %8d  %9.3f  %7.0f", rows, seconds, rowsPerSecond)
                + "  " + [query, decode, apply, other].map(share).joined(separator: "  ")
                + String(format: "  %9.1f  %12.3f  %10.0f", peakMiB, cpuSeconds, Double(rows) / cpuSeconds)
        }
    }

    /// An empty device's first sync, timed in parts.
    /// Where device files go: under the temporary directory (this machine's disk), and under
    /// /dev/shm (memory); removed at the end.
    static let deviceDirectories: [(place: String, directory: URL)] = {
        let name = "hope-sync-bench-\(ProcessInfo.processInfo.processIdentifier)"
        let memory = URL(fileURLWithPath: "/dev/shm")
        var places = [(place: "disk", directory: FileManager.default.temporaryDirectory.appendingPathComponent(name))]
        if FileManager.default.isWritableFile(atPath: memory.path) {
            places.append((place: "memory", directory: memory.appendingPathComponent(name)))
        }
        for (_, directory) in places { try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        return places
    }()

    static func initialSync(_ server: Server, ordering: PullOrdering, name: String, directory: URL) async throws -> InitialSync {
        let timings = RequestTimings()
        let timed = TimedTransport(PostgresTransport(configuration: .init(url: server.url, timings: timings)))
        let tables = GeneratedSchema.tables.map {
            TableSchema(
                name: $0.name, columns: $0.columns, primaryKey: $0.primaryKey, conflict: $0.conflict, ordering: ordering,
                openRowRule: $0.openRowRule)
        }
        let path = directory.appendingPathComponent("bench-sync-\(name)-\(UUID().uuidString).sqlite").path
        let store = try SyncStore(
            path: path, schema: AppSchema(tables: tables, migrations: GeneratedSchema.migrations), userID: user, deviceID: name)
        let engine = SyncEngine(store: store, transport: timed) { credentials }
        var report = SyncReport()
        let cpuBefore = Measure.cpuSeconds()
        let seconds = try await Measure.secondsAsync { report = try await engine.syncNow() }
        let cpuSeconds = Measure.cpuSeconds() - cpuBefore
        let pulling = timed.pullSeconds
        let decode = timings.seconds(.decode)
        let query = timings.seconds(.query) - decode // a page is decoded inside its request
        return InitialSync(
            device: (store, engine), rows: report.pulled, seconds: seconds, query: query, decode: decode,
            apply: seconds - pulling, other: pulling - query - decode, peakMiB: Measure.peakMemoryMiB() ?? 0,
            cpuSeconds: cpuSeconds, memoryAt10k: timed.memoryByRows.first { $0.rows >= 10_000 }?.mebibytes ?? 0,
            memoryAtEnd: timed.memoryByRows.last?.mebibytes ?? 0
        )
    }

    /// Seconds raw SQLite takes to upsert `rows` into a new file with the app's migrations.
    static func rawUpsert(_ rows: [[DatabaseValue]], directory: URL) throws -> Double {
        let path = directory.appendingPathComponent("bench-raw-\(UUID().uuidString).sqlite").path
        let queue = try RuntimeBenchmark.rawDatabase(path)
        defer { queue.close() }
        return try Measure.seconds {
            try queue.write { db in
                let statement = try db.cachedStatement(RuntimeBenchmark.upsertSQL)
                for row in rows { try statement.execute(row) }
            }
        }
    }

    /// The median time of a sync pass that finds nothing to push or pull.
    static func idleCycle(_ device: (store: SyncStore, engine: SyncEngine)) async throws -> Double {
        _ = try await device.engine.syncNow()
        var times: [Double] = []
        for _ in 0..<50 {
            times.append(try await Measure.secondsAsync { _ = try await device.engine.syncNow() })
        }
        return Measure.median(times)
    }
}

/// Counts the time spent inside the transport's pulls (query, decode and the hops between).
final class TimedTransport: SyncTransport, @unchecked Sendable {
    let base: any SyncTransport
    private let lock = NSLock()
    private var nanoseconds: UInt64 = 0
    private var rowsSoFar = 0
    /// Resident memory as the rows arrived: (rows pulled so far, MiB), one sample a page.
    private var samples: [(rows: Int, mebibytes: Double)] = []
    var memoryByRows: [(rows: Int, mebibytes: Double)] { lock.withLock { samples } }

    init(_ base: any SyncTransport) {
        self.base = base
    }

    var pullSeconds: Double { Double(lock.withLock { nanoseconds }) / 1e9 }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { lock.withLock { nanoseconds += DispatchTime.now().uptimeNanoseconds - start } }
        let page = try await base.pull(table, after: cursor, limit: limit, as: user)
        let resident = Measure.residentMemoryMiB() ?? 0
        lock.withLock {
            rowsSoFar += page.receivedCount
            samples.append((rowsSoFar, resident))
        }
        return page
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try await base.upsert(rows, into: table, as: user)
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        try await base.guardedUpdate(
            table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
    }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
        try await base.fetch(table, ids: ids, columns: columns, as: user)
    }
}
