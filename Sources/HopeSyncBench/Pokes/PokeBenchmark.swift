import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresCluster

/// `bench pokes`: from a save on device A to the row applied on device B, through PostgreSQL
/// (the generated SQL, whose triggers send the pokes) and the test Realtime server
/// (Tests/Servers/realtime_server.py, which needs `scripts/python-env`), with pokes beside
/// polling only, and with every poke lost (the reader's Realtime unreachable, so it polls at
/// its usual pace); and the requests an idle device makes per minute with a healthy channel
/// beside polling only. The engines run their real schedules: pollInterval 5 s, debounce
/// 500 ms, pollIntervalWithPokes 60 s. Settings: POKES_SAMPLES (default 60), POKES_POLL_SAMPLES
/// (20), POKES_IDLE_SECONDS (the idle window, at least; 150). First, 20 saves while every
/// socket is killed twice: how many of their rows B misses or holds twice.
enum PokeBenchmark {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func setting(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }

    static func run() async throws -> [Figure] {
        let samples = setting("POKES_SAMPLES", 60)
        let pollSamples = setting("POKES_POLL_SAMPLES", 20)
        let idleSeconds = Double(setting("POKES_IDLE_SECONDS", 150))

        let cluster = try BenchCluster.start()
        defer { cluster.stop() }
        let database = try cluster.createDatabase("pokes", generatedSchema: false)
        // Realtime's schema first: the generated SQL sends pokes only where it exists.
        try database.admin.execute(script: SupabasePrelude.realtime)
        try database.admin.execute(
            script: String(contentsOf: Repository.root.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8))
        let realtime = try RealtimeTestServer(databaseURL: database.url, root: Repository.root)
        defer { realtime.stop() }
        let directory = Scratch.directory("bench-pokes", inMemory: true) ?? FileManager.default.temporaryDirectory
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = PostgresTransport(url: database.url)
        let pokes = RealtimePokes(projectURL: realtime.url, apiKey: try await realtime.anonKey())
        // Nothing listens there: a channel that never joins, as when Realtime is unreachable.
        let unreachable = RealtimePokes(projectURL: URL(string: "http://127.0.0.1:9")!, apiKey: "unused")

        func device(_ name: String, _ user: UUID, _ source: RealtimePokes?) async throws -> PokeDevice {
            try PokeDevice(
                name, user: user, token: try await realtime.token(for: user), transport: transport, pokes: source, directory: directory)
        }
        func joined(_ channels: Int) async throws {
            while try await realtime.stats()["channels"] ?? 0 < channels { try await Task.sleep(for: .milliseconds(20)) }
            // The pass each join starts.
            try await Task.sleep(for: .seconds(1))
        }

        let user = UUID()
        let writer = try await device("a", user, pokes)
        let reader = try await device("b", user, pokes)
        for engine in [writer.engine, reader.engine] { await engine.start() }
        try await joined(2)
        // First, so that the idle devices' count below has no reconnection in it (a kill ends
        // every socket): sockets killed twice while A saves, B's rows checked after.
        let killed = try await savesWithSocketsKilled(20, from: writer, to: reader, realtime, gap: 600...900)

        // Idle devices of users nobody writes for, counted over the whole run.
        let idleWithPokes = try await device("idle-pokes", UUID(), pokes)
        let idlePolling = try await device("idle-polling", UUID(), nil)
        await idleWithPokes.engine.start()
        await idlePolling.engine.start()
        try await joined(3)
        let idleStart = DispatchTime.now().uptimeNanoseconds
        let idleBase = (pokes: idleWithPokes.requests.total, polling: idlePolling.requests.total)

        // Each save comes after a quiet spell longer than the debounce, so it is pushed at once;
        // with polling, at a random point of the reader's 5 s poll (a save right after the last
        // arrived would meet the reader's poll always at the same point).
        let quiet = 600...900
        let quietOverAPoll = 600...5_600
        print("save on A to applied on B, ms; saves 0.6-0.9 s apart with pokes, 0.6-5.6 s polling:")
        print(tableRow(["", "saves", "p50", "p95", "p99", "max"], widths: [40, 7, 8, 8, 8, 8]))
        let poked = try await latencies(samples, from: writer, to: reader, "poked", gap: quiet)
        printRow("pokes", poked)
        printRow("sockets killed twice (run first)", killed.latencies)

        let pollingUser = UUID()
        let pollingWriter = try await device("polling-a", pollingUser, nil)
        let pollingReader = try await device("polling-b", pollingUser, nil)
        for engine in [pollingWriter.engine, pollingReader.engine] { await engine.start() }
        let polled = try await latencies(pollSamples, from: pollingWriter, to: pollingReader, "polled", gap: quietOverAPoll)
        printRow("polling only (5 s)", polled)
        for engine in [pollingWriter.engine, pollingReader.engine] { await engine.stop() }

        await reader.engine.stop()
        try await realtime.setFaults(drop: 1)
        let cutOff = try await device("b-cut-off", user, unreachable)
        await cutOff.engine.start()
        try await Task.sleep(for: .seconds(1))
        let lost = try await latencies(pollSamples, from: writer, to: cutOff, "lost", gap: quietOverAPoll)
        printRow("every poke lost, Realtime unreachable", lost)
        let dropped = try await realtime.stats()["dropped"] ?? 0
        await cutOff.engine.stop()
        await writer.engine.stop()

        let waited = Measure.since(idleStart)
        if waited < idleSeconds { try await Task.sleep(for: .seconds(idleSeconds - waited)) }
        let minutes = Measure.since(idleStart) / 60
        let tables = Double(GeneratedSchema.tables.count)
        let withPokes = Double(idleWithPokes.requests.total - idleBase.pokes) / minutes
        let pollingOnly = Double(idlePolling.requests.total - idleBase.polling) / minutes
        await idleWithPokes.engine.stop()
        await idlePolling.engine.stop()
        print("(\(dropped) pokes dropped by the server in the last row)")
        print("sockets killed: \(killed.missing) of \(killed.latencies.count) saves missing on B, \(killed.doubled) there twice")
        print(
            "\nidle requests per device-minute over \(Measure.format(minutes * 60, digits: 0)) s, nobody writing (a poll is one request through the pull function, \(Int(tables)) table by table):"
        )
        print(tableRow(["", "all tables", "per table"], widths: [40, 12, 10]))
        print(
            tableRow(
                ["healthy channel (poll 60 s)", Measure.format(withPokes, digits: 2), Measure.format(withPokes / tables, digits: 2)],
                widths: [40, 12, 10]))
        print(
            tableRow(
                ["polling only (poll 5 s)", Measure.format(pollingOnly, digits: 2), Measure.format(pollingOnly / tables, digits: 2)],
                widths: [40, 12, 10]))
        print("(the channel's heartbeats, one WebSocket frame each 25 s, are not requests)")
        print(
            "A healthy channel whose pokes are silently lost leaves a device on the 60 s poll: at most 60.5 s, not measured here."
        )

        return [
            Figure("poke.p50_ms", poked.p50, aim: nil, digits: 1),
            Figure("poke.polling_p95_ms", polled.p95, aim: nil, digits: 0),
            Figure("poke.p95_ms", poked.p95, aim: 250, digits: 1),
            Figure("poke.p99_ms", poked.p99, aim: nil, digits: 1),
            Figure("poke.all_dropped_max_ms", lost.max, aim: 5_500, digits: 0),
            Figure("poke.idle_requests_per_device_minute", withPokes / tables, aim: 1, digits: 2),
            Figure("poke.killed_sockets_lost_or_doubled", Double(killed.missing + killed.doubled), aim: 0, digits: 0),
        ]
    }

    /// `count` saves on `writer` timed to `reader` as in ``latencies``, with every Realtime socket
    /// killed at a third and at two thirds of them: both channels rejoin (each join pulls) while
    /// the saves go on. Then the saves' rows on `reader`: how many are missing, how many twice.
    static func savesWithSocketsKilled(
        _ count: Int, from writer: PokeDevice, to reader: PokeDevice, _ realtime: RealtimeTestServer, gap: ClosedRange<Int>
    ) async throws -> (latencies: Latencies, missing: Int, doubled: Int) {
        var times: [Double] = []
        for number in 0..<count {
            if number == count / 3 || number == 2 * count / 3 { try await realtime.killSockets() }
            try await Task.sleep(for: .milliseconds(Int.random(in: gap)))
            times.append(try await writer.save("killed \(number)", appliedOn: reader))
        }
        let names = try await reader.store.read { try $0.fetchAll(Activity.self).map(\.name).filter { $0.hasPrefix("killed ") } }
        let distinct = Set(names)
        return (Latencies(times), count - distinct.count, names.count - distinct.count)
    }

    /// `count` saves on `writer`, each `gap` ms after the last arrived (drawn from the range),
    /// each timed to its commit on `reader`, in ms.
    static func latencies(
        _ count: Int, from writer: PokeDevice, to reader: PokeDevice, _ label: String, gap: ClosedRange<Int>
    ) async throws -> Latencies {
        var random = SystemRandomNumberGenerator()
        var times: [Double] = []
        for number in 0..<count {
            try await Task.sleep(for: .milliseconds(Int.random(in: gap, using: &random)))
            times.append(try await writer.save("\(label) \(number)", appliedOn: reader))
        }
        return Latencies(times)
    }

    static func printRow(_ label: String, _ latencies: Latencies) {
        print(
            tableRow(
                [label, "\(latencies.count)"]
                    + [latencies.p50, latencies.p95, latencies.p99, latencies.max].map { Measure.format($0, digits: 1) },
                widths: [40, 7, 8, 8, 8, 8]))
    }
}
