import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncPostgres
import HopeSyncTestSupport

/// `bench sync`, on a throwaway PostgreSQL 15 with the generated schema.sql: an empty device's
/// initial sync of 100k session rows (and the small tables) through libpq and through PostgREST's
/// JSON pages for the same rows, each beside raw SQLite upserting the same rows in the same
/// directory, on this machine's disk and in memory (/dev/shm). Every run is a process of its own
/// (``SyncChild``): its rate, CPU time and resident memory above its idle memory. Eleven rounds
/// (one round's ratio moves by a quarter on these machines, a median of five by a tenth), the
/// parts interleaved in each; each ratio is the median of the rounds' ratios. Then idle polls
/// (``IdlePolls``).
enum InitialSync {
    static let user = UUID(uuidString: "0b5f7a8e-3c2d-4e1f-9a6b-7c8d9e0f1a2b")!
    static let credentials = Credentials(userID: user, accessToken: "unused")
    static let sessions = 100_000
    static let smallTables = [(table: "activities", rows: 20), (table: "tasks", rows: 200), (table: "task_lists", rows: 10)]
    static let powerSyncRowsPerSecond = 27_600.0
    static let rounds = 11

    static func run() async throws -> [Figure] {
        let arguments = Array(CommandLine.arguments.dropFirst(2))
        if arguments.first == "child" {
            print(ChildProcess.line(try await SyncChild.run(Array(arguments.dropFirst()))))
            return []
        }
        let cluster = try BenchCluster.start()
        let places = [("disk", false), ("memory", true)].compactMap { place, inMemory in
            Scratch.directory("hope-sync-bench", inMemory: inMemory).map { (place: place, directory: $0) }
        }
        let pages = FileManager.default.temporaryDirectory.appendingPathComponent("hope-sync-bench-pages-\(getpid())")
        defer {
            cluster.stop()
            for directory in places.map(\.directory) + [pages] { try? FileManager.default.removeItem(at: directory) }
        }
        let database = try cluster.createDatabase("bench", generatedSchema: true)
        print("Initial sync: PostgreSQL 15 on this machine over TCP 127.0.0.1, pages of 1000 rows; each run a process of its own\n")
        let loadSeconds = try Measure.seconds { try load(database) }
        print(
            "loaded \(sessions) sessions + \(smallTables.map { "\($0.rows) \($0.table)" }.joined(separator: " + ")) server-side in "
                + "\(Measure.format(loadSeconds, digits: 2)) s (triggers on)")
        try writePostgRESTPages(database, to: pages)
        print("PostgREST's pages written (json_agg of the select it runs)\n")

        print("run          part       rows   seconds   rows/s  ratio  CPU s  idle MiB  peak MiB  extra MiB  at 10k  at end")
        var runs: [String: [SyncChild.Part: [SyncChild.Result]]] = [:]
        var ratios: [String: [SyncChild.Part: [Double]]] = [:]
        for round in 1...rounds {
            for (place, directory) in places {
                var raw: SyncChild.Result?
                for part in SyncChild.Part.allCases {
                    let result = try ChildProcess.result(SyncChild.Result.self, [part.rawValue, directory.path, database.url, pages.path])
                    runs[place, default: [:]][part, default: []].append(result)
                    if part == .raw { raw = result } else if let raw { ratios[place, default: [:]][part, default: []].append(result / raw) }
                    print(row("\(place) \(round)", part, result, raw: part == .raw ? nil : raw))
                }
            }
        }
        return try await summary(runs, ratios) + IdlePolls.run(database, directory: places[0].directory)
    }

    /// The medians, and the figures.
    static func summary(_ runs: [String: [SyncChild.Part: [SyncChild.Result]]], _ ratios: [String: [SyncChild.Part: [Double]]]) -> [Figure]
    {
        print("\nmedians of \(rounds) rounds (ratio: the median of each round's ratio to raw SQLite beside it)")
        var figures: [Figure] = []
        for place in ["disk", "memory"] {
            guard let parts = runs[place] else { continue }
            for part in [SyncChild.Part.libpq, .postgrest] {
                let rates = (parts[part] ?? []).map(\.rowsPerSecond)
                let rounds = ratios[place]?[part] ?? []
                let extra = (parts[part] ?? []).map(\.extraMiB)
                print(
                    "\(place.padded(7)) \(part.rawValue.padded(10)) \(Measure.format(Measure.median(rates), digits: 0)) rows/s, raw "
                        + "\(Measure.format(Measure.median((parts[.raw] ?? []).map(\.rowsPerSecond)), digits: 0)) rows/s: ratio "
                        + "\(Measure.format(Measure.median(rounds), digits: 2)) (rounds \(rounds.map { Measure.format($0, digits: 2) }.joined(separator: ", "))); "
                        + "memory above idle \(extra.map { Measure.format($0) }.joined(separator: ", ")) MiB")
            }
        }
        func ratio(_ place: String, _ part: SyncChild.Part) -> Double { Measure.median(ratios[place]?[part] ?? [.nan]) }
        for place in ["disk", "memory"] {
            let rounds = ratios[place]?[.applied] ?? []
            print(
                "\(place.padded(7)) applied    the same pages applied with nothing fetching beside it: ratio "
                    + "\(Measure.format(ratio(place, .applied), digits: 2)) (rounds \(rounds.map { Measure.format($0, digits: 2) }.joined(separator: ", ")))"
            )
        }
        let diskRate = Measure.median((runs["disk"]?[.libpq] ?? []).map(\.rowsPerSecond))
        print(
            "PowerSync Flutter desktop (published): \(Measure.format(powerSyncRowsPerSecond, digits: 0)) rows/s; this, libpq, device file on disk: "
                + "\(Measure.format(diskRate, digits: 0)) rows/s, ratio \(Measure.format(diskRate / powerSyncRowsPerSecond, digits: 2)); target 50000"
        )
        print("(query: begin to commit in libpq, summed over pages, decode inside it; they overlap the apply)")
        let synced = runs.values.flatMap { $0.filter { $0.key == .libpq || $0.key == .postgrest }.values.joined() }
        figures.append(Figure("sync.disk_over_raw", ratio("disk", .libpq), aim: 0.85))
        figures.append(Figure("sync.memory_over_raw", ratio("memory", .libpq), aim: 0.85))
        figures.append(Figure("sync.postgrest_over_raw", ratio("disk", .postgrest), aim: 0.85))
        figures.append(Figure("sync.disk_rows_per_s", diskRate, aim: 50_000, digits: 0))
        figures.append(Figure("sync.peak_extra_mib", synced.map(\.extraMiB).max() ?? .nan, aim: 64, digits: 1))
        return figures
    }

    static func row(_ run: String, _ part: SyncChild.Part, _ result: SyncChild.Result, raw: SyncChild.Result?) -> String {
        let ratio = raw.map { String(format: "%5.2f", result / $0) } ?? "    -"
        var line = run.padded(12) + " " + part.rawValue.padded(9)
        line += String(format: " %7d  %7.3f  %7.0f  ", result.rows, result.seconds, result.rowsPerSecond) + ratio
        line += String(format: "  %5.2f", result.cpuSeconds)
        guard part != .raw, part != .applied else { return line }
        line += String(
            format: "  %8.1f  %8.1f  %9.1f  %6.1f  %6.1f", result.idleMiB, result.peakMiB, result.extraMiB, result.at10kMiB, result.endMiB)
        if part == .libpq { line += String(format: "   query %.2f s, decode %.2f s", result.query, result.decode) }
        return line
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

    /// Every table's pages as PostgREST answers the device's pulls (json_agg of the same select,
    /// in the transport's column order), one file each in `directory`.
    static func writePostgRESTPages(_ database: BenchDatabase, to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (owner, sequence) = (ReservedColumn.owner, ReservedColumn.serverSeq)
        for table in GeneratedSchema.tables {
            let columns = table.columnNames.map { "\"\($0)\"" }.joined(separator: ", ")
            var after: Int64 = 0
            while true {
                let page = try database.admin.execute(
                    """
                    select coalesce(json_agg(t), '[]')::text, count(*), max(t.\(sequence)) from
                      (select \(columns) from public.\(table.name) where \(owner) = $1 and \(sequence) > $2 order by \(sequence) limit $3) t
                    """, [user.uuidString.lowercased(), String(after), String(PostgRESTPages.pageSize)])
                let row = page.rows[0]
                try PostgRESTPages.write(Data((row[0] ?? "[]").utf8), table.name, after: after, to: directory)
                guard Int(row[1] ?? "") == PostgRESTPages.pageSize, let last = Int64(row[2] ?? "") else { break }
                after = last
            }
        }
    }
}

extension SyncChild.Result {
    /// Throughput as a share of `baseline`'s (wall time).
    static func / (result: Self, baseline: Self) -> Double { result.rowsPerSecond / baseline.rowsPerSecond }
}
