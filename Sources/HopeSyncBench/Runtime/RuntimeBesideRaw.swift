import Foundation
import HopeSchema
@_spi(Transport) import HopeSync

/// `bench runtime`: the runtime's local work on session rows beside raw SQLite (WAL,
/// synchronous=NORMAL). Pull: (a) raw SQLite upserting N rows with one prepared statement in one
/// transaction; (b) the runtime pulling the same N rows as PostgREST JSON pages
/// (``PostgRESTPages``, `syncNow()`); (b') the runtime applying the same pages read beforehand.
/// Local writes: one row per transaction, raw against `store.write { try $0.save(session) }`, the
/// same rows on both sides (made as each loop goes).
/// Every figure comes from a fresh child process (so each peak memory, VmHWM, is that run's
/// own); the parts run interleaved, three rounds, each figure the median round, with CPU time
/// beside wall time because the machine is shared.
enum RuntimeBesideRaw {
    enum Part: String {
        case rawUpsert = "raw-upsert"
        case pull, apply
        case rawWrites = "raw-writes"
        case writes
    }

    static func run() async throws -> [Figure] {
        let arguments = Array(CommandLine.arguments.dropFirst(2))
        if arguments.first == "child", arguments.count == 3, let part = Part(rawValue: arguments[1]), let count = Int(arguments[2]) {
            print(try await measure(part, rows: count).line)
            return []
        }
        print("Runtime beside raw SQLite: sessions rows, WAL, synchronous=NORMAL; medians of 3 interleaved rounds\n")
        print("                         N   rows/s  ratio  CPU ratio  peak MiB")
        var figures: [Figure] = []
        for count in [10_000, 100_000] {
            let results = try ChildRuns.rounds([Part.rawUpsert, .pull, .apply].map(\.rawValue), count)
            let (raw, pull, apply) = (results[Part.rawUpsert.rawValue]!, results[Part.pull.rawValue]!, results[Part.apply.rawValue]!)
            print(raw.row("(a) raw upsert", baseline: nil))
            print(pull.row("(b) runtime pull", baseline: raw))
            print(apply.row("(b') apply only", baseline: raw))
            // The initial sync over PostgREST, beside libpq's, is `bench sync`'s sync.postgrest_over_raw.
            figures.append(Figure("runtime.pull_over_raw_\(count)", pull / raw, aim: 0.5))
            figures.append(Figure("runtime.apply_over_raw_\(count)", apply / raw, aim: 0.5))
        }
        print("")
        for count in [2_000, 10_000] {
            let results = try ChildRuns.rounds([Part.rawWrites, .writes].map(\.rawValue), count)
            let (raw, writes) = (results[Part.rawWrites.rawValue]!, results[Part.writes.rawValue]!)
            print(raw.row("raw single writes", baseline: nil))
            print(writes.row("runtime writes", baseline: raw))
            figures.append(Figure("runtime.local_write_over_raw_\(count)", writes / raw, aim: 0.8))
        }
        return figures
    }

    /// One part, in this (child) process.
    static func measure(_ part: Part, rows count: Int) async throws -> ChildRuns.Result {
        let path = Scratch.databasePath("bench-runtime")
        defer { Scratch.removeDatabase(path) }
        let sessions = SessionRows(keys: .sequential)
        switch part {
        case .rawUpsert:
            let queue = try RawSQLite.open(path)
            return try await ChildRuns.Result.timed(count) {
                try queue.write { db in
                    let statement = try db.cachedStatement(RawSQLite.upsertSession)
                    for index in 0..<count { try statement.execute(RawSQLite.values(sessions.row(index))) }
                }
            }
        case .rawWrites:
            let queue = try RawSQLite.open(path)
            return try await ChildRuns.Result.timed(count) {
                for index in 0..<count {
                    try queue.write { db in try db.execute(RawSQLite.upsertSession, RawSQLite.values(sessions.row(index))) }
                }
            }
        case .pull, .apply:
            let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: SessionRows.user, deviceID: "bench")
            let credentials = Credentials(userID: SessionRows.user, accessToken: "token")
            var transport: any SyncTransport = try PostgRESTPages.transport(rows: count)
            if part == .apply {
                // The runtime's own share: the same pages read beforehand (untimed, held in memory).
                transport = ServedPages(
                    try await transport.pullAll(Session.table, pageSize: PostgRESTPages.pageSize, as: credentials), of: Session.table)
            }
            let engine = SyncEngine(store: store, transport: transport, credentials: { credentials })
            return try await ChildRuns.Result.timed(count) {
                let report = try await engine.syncNow()
                guard report.pulled == count else { throw BenchmarkError("pulled \(report.pulled) of \(count)") }
            }
        case .writes:
            let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: SessionRows.user, deviceID: "bench")
            return try await ChildRuns.Result.timed(count) {
                for index in 0..<count {
                    let session = sessions.session(index)
                    try store.write { try $0.save(session) }
                }
            }
        }
    }
}
