import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncTestSupport

/// One initial sync, or its raw baseline, in a process of its own, so that its memory is a
/// device's doing only that: `bench sync child <part> <directory> <database url> <pages>`.
/// The device opens an empty store in `directory`, with its engine and transport; that is its
/// idle resident memory. The peak (VmHWM, reset at that point) is taken after the sync.
enum SyncChild {
    enum Part: String, CaseIterable, Codable {
        /// Raw SQLite upserting the sessions' rows, read from PostgreSQL beforehand (untimed) and
        /// held as values, into an empty file in the same directory: one statement, one transaction.
        case raw
        /// The initial sync through PostgresTransport (libpq).
        case libpq
        /// The initial sync through PostgRESTTransport, its pages PostgREST's JSON for the same rows
        /// (written beforehand, served from files).
        case postgrest
        /// The runtime's own share: the sessions' pages read through libpq beforehand (untimed,
        /// held in memory), then applied by the engine with nothing fetching beside it.
        case applied
    }

    struct Result: Codable {
        var rows = 0
        var seconds = 0.0
        var cpuSeconds = 0.0
        /// Resident memory with the store, engine and transport open, before the sync (MiB).
        var idleMiB = 0.0
        /// The most resident memory from then to the end of the sync.
        var peakMiB = 0.0
        /// Resident memory after the first 10,000 rows, and after the last.
        var at10kMiB = 0.0
        var endMiB = 0.0
        /// libpq only: begin to commit, and the decoding inside it (seconds, summed over pages).
        var query = 0.0
        var decode = 0.0

        var rowsPerSecond: Double { Double(rows) / seconds }
        var extraMiB: Double { peakMiB - idleMiB }
    }

    static func run(_ arguments: [String]) async throws -> Result {
        guard arguments.count == 4, let part = Part(rawValue: arguments[0]) else {
            let parts = Part.allCases.map(\.rawValue).joined(separator: "|")
            throw BenchmarkError("usage: bench sync child \(parts) <directory> <database url> <pages directory>")
        }
        let directory = URL(fileURLWithPath: arguments[1])
        let (url, pages) = (arguments[2], URL(fileURLWithPath: arguments[3]))
        /// The sessions' pages through libpq, read before anything is timed.
        func sessionPages() async throws -> [PulledPage] {
            try await PostgresTransport(url: url).pullAll(Session.table, as: InitialSync.credentials)
        }
        let timings = RequestTimings()
        let base: any SyncTransport
        switch part {
        case .raw:
            let values = try await sessionPages().flatMap(\.rows).map(RawSQLite.values)
            let cpu = Measure.cpuSeconds()
            let seconds = try RawSQLite.upsertSessions(values, in: directory)
            return Result(rows: values.count, seconds: seconds, cpuSeconds: Measure.cpuSeconds() - cpu)
        case .libpq: base = PostgresTransport(configuration: .init(url: url, timings: timings))
        case .postgrest: base = PostgRESTPages.transport(directory: pages)
        // Its memory is the pages it holds: not reported.
        case .applied: base = ServedPages(try await sessionPages(), of: Session.table)
        }
        let pulls = PullWatch()
        let transport = WatchedTransport(base: base) { pulls.record($0) }
        let path = Scratch.databasePath("bench-sync-\(part.rawValue)", in: directory)
        defer { Scratch.removeDatabase(path) }
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: InitialSync.user, deviceID: "bench")
        defer { store.close() }
        let engine = SyncEngine(store: store, transport: transport) { InitialSync.credentials }

        Measure.resetPeakMemory()
        var result = Result(idleMiB: Measure.residentMemoryMiB() ?? 0)
        let cpu = Measure.cpuSeconds()
        var report = SyncReport()
        result.seconds = try await Measure.secondsAsync { report = try await engine.syncNow() }
        result.cpuSeconds = Measure.cpuSeconds() - cpu
        result.peakMiB = Measure.peakMemoryMiB() ?? 0
        result.rows = report.pulled
        (result.at10kMiB, result.endMiB) = (pulls.memory.at10k, pulls.memory.atEnd)
        result.decode = timings.seconds(.decode)
        result.query = timings.seconds(.query) - result.decode // a page is decoded inside its request
        return result
    }
}

/// Resident memory as the rows arrived, one sample a page.
final class PullWatch: Sendable {
    struct Memory {
        var at10k = 0.0
        var atEnd = 0.0
    }

    private let state = Locked((rows: 0, memory: Memory()))

    func record(_ request: WatchedRequest) {
        guard request.kind == .pull, case .success(let rows) = request.outcome else { return }
        let resident = Measure.residentMemoryMiB() ?? 0
        state.withLock { state in
            if state.rows < 10_000, state.rows + rows >= 10_000 { state.memory.at10k = resident }
            state.rows += rows
            state.memory.atEnd = resident
        }
    }

    var memory: Memory { state.value.memory }
}
