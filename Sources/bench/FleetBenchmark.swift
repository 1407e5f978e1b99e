import Foundation
import HopeSchema
import Postgres
import PostgresCluster
import SyncPostgres
import SyncRuntime

/// Issue 13's fleet: 200 devices of 50 users (4 each), every one a real SyncStore and a real
/// SyncEngine on the engine's own schedule (start(), debounced pushes, polls, backoff), its
/// intervals divided by a speed-up factor, writing on a random schedule for a bounded minute
/// of wall time against one PostgreSQL 15 with the generated SQL, through one PostgresTransport
/// whose pool all devices share (as PostgREST's db-pool is shared by every client). Then the
/// writers stop, every device syncs to quiescence on its schedule, and the run checks that every
/// acknowledged write is on the server (or lost only to a newer pair of the same column) and
/// that every device holds exactly its user's server rows.
///
/// The baseline, from the same run: one device alone with the same schedule and write mix, on
/// the same server and pool: per-request latency without contention, and its server CPU per
/// device-minute.
///
/// Settings (environment): FLEET_SPEEDUP (5), FLEET_SECONDS (60), FLEET_POOL (10),
/// FLEET_USERS (50), FLEET_DEVICES_PER_USER (4), FLEET_WRITE_SECONDS (15: the mean time between
/// one device's writes on the real schedule), FLEET_BASELINE_SECONDS (30),
/// FLEET_BASELINE_WRITE_FACTOR (10), FLEET_IDLE_SECONDS (15), FLEET_SEED (13).
func runFleetBenchmark() async throws {
    let settings = FleetBenchmark.Settings()
    let server = try SyncBenchmark.Server()
    let directory = FleetBenchmark.deviceDirectory()
    defer {
        server.cluster.stop()
        try? FileManager.default.removeItem(at: directory)
    }
    settings.printHeader(directory: directory)
    try FleetBenchmark.seed(server.admin, users: settings.users + 1)
    let probe = try FleetBenchmark.ServerProbe(server)
    let log = FleetLog()
    let timings = RequestTimings()
    let shared = PostgresTransport(
        configuration: .init(url: server.url, maximumConnections: settings.pool, timings: timings))

    // The baseline: one device alone (the last user's first device), same schedule and mix.
    log.phase = .baseline
    let alone = try FleetBenchmark.makeDevices(
        users: [FleetBenchmark.user(settings.users)], settings: settings, transport: shared, log: log, directory: directory,
        firstIndex: 10_000)
    let baseline = try await FleetBenchmark.run(
        alone, seconds: settings.baselineSeconds, writeSeconds: settings.wallWriteSeconds / settings.baselineWriteFactor,
        settings: settings,
        probe: probe, timings: timings)
    log.phase = .drain
    let baselineQuiet = await FleetBenchmark.drain(alone, settings: settings, probe: probe)
    for device in alone { await device.engine.stop() }

    // The fleet.
    let users = (0..<settings.users).map(FleetBenchmark.user)
    let openStart = DispatchTime.now().uptimeNanoseconds
    let devices = try FleetBenchmark.makeDevices(
        users: users, settings: settings, transport: shared, log: log, directory: directory, firstIndex: 0)
    let openSeconds = Double(DispatchTime.now().uptimeNanoseconds - openStart) / 1e9
    print("opened \(devices.count) device stores in \(Measure.format(openSeconds, digits: 1)) s\n")
    log.phase = .fleet
    let fleet = try await FleetBenchmark.run(
        devices, seconds: settings.seconds, writeSeconds: settings.wallWriteSeconds, settings: settings, probe: probe, timings: timings)
    log.phase = .drain
    let quiet = await FleetBenchmark.drain(devices, settings: settings, probe: probe)
    // Then nobody writes: every device only polls (the idle load a fleet puts on a server).
    log.phase = .idle
    let idle = try await FleetBenchmark.run(
        devices, seconds: settings.idleSeconds, writeSeconds: nil, settings: settings, probe: probe, timings: timings)
    log.phase = .stopping
    for device in devices { await device.engine.stop() }

    FleetBenchmark.printReport(settings: settings, log: log, baseline: baseline, fleet: fleet, idle: idle)
    print(
        "\nquiescence after the writers stopped: baseline device \(baselineQuiet.line); fleet \(quiet.line)")
    let check = try await FleetBenchmark.verify(devices + alone, log: log, server: server)
    check.print()
    let numbers = try await FleetBenchmark.sequenceProbe(server, user: FleetBenchmark.user(0))
    print("\n" + (try await FleetBenchmark.waitingPushesProbe(server, pool: settings.pool)))
    print(
        "server_seq numbers one upsert of one activity takes (through PostgresTransport, nothing else running):"
            + " a new row \(numbers.new), a winning update \(numbers.winning), a losing repeat \(numbers.losing)")
}

enum FleetBenchmark {
    struct Settings {
        let speedup: Double
        let seconds: Double
        let pool: Int
        let users: Int
        let devicesPerUser: Int
        /// Mean seconds between one device's writes on the real (uncompressed) schedule.
        let writeSeconds: Double
        let baselineSeconds: Double
        /// The device alone writes this many times as often as each fleet device, for enough
        /// samples of its pushes in a short run (its requests still never overlap).
        let baselineWriteFactor: Double
        let idleSeconds: Double
        let seed: UInt64

        init(environment: [String: String] = ProcessInfo.processInfo.environment) {
            func value(_ name: String, _ fallback: Double) -> Double { environment[name].flatMap(Double.init) ?? fallback }
            speedup = max(1, value("FLEET_SPEEDUP", 5))
            seconds = value("FLEET_SECONDS", 60)
            pool = Int(value("FLEET_POOL", 10))
            users = Int(value("FLEET_USERS", 50))
            devicesPerUser = Int(value("FLEET_DEVICES_PER_USER", 4))
            writeSeconds = value("FLEET_WRITE_SECONDS", 15)
            baselineSeconds = value("FLEET_BASELINE_SECONDS", 30)
            baselineWriteFactor = max(1, value("FLEET_BASELINE_WRITE_FACTOR", 10))
            idleSeconds = value("FLEET_IDLE_SECONDS", 15)
            seed = UInt64(value("FLEET_SEED", 13))
        }

        /// The engine's schedule with every interval divided by the speed-up.
        var configuration: SyncConfiguration {
            var configuration = SyncConfiguration()
            let real = SyncConfiguration()
            configuration.pollInterval = real.pollInterval / speedup
            configuration.debounce = real.debounce / speedup
            configuration.backoffBase = real.backoffBase / speedup
            configuration.backoffCeiling = real.backoffCeiling / speedup
            configuration.warn = { _ in }
            return configuration
        }

        /// Mean wall seconds between one device's writes.
        var wallWriteSeconds: Double { writeSeconds / speedup }

        func printHeader(directory: URL) {
            let schedule = configuration
            print(
                """
                Fleet benchmark (issue 13): \(users * devicesPerUser) devices of \(users) users (\(devicesPerUser) each), real SyncStore + SyncEngine each,
                PostgreSQL 15 with Generated/supabase/schema.sql on this machine (TCP 127.0.0.1), one PostgresTransport shared by all devices
                with a pool of \(pool) connections (PostgREST's default db-pool); device files in \(directory.path); release build.
                Time compressed \(Measure.format(speedup, digits: 0))x: poll \(schedule.pollInterval), debounce \(schedule.debounce), backoff \(schedule.backoffBase) doubling to \(schedule.backoffCeiling);
                each device writes on a random (exponential) schedule, mean \(Measure.format(writeSeconds, digits: 0)) s between writes on the real schedule (\(Measure.format(wallWriteSeconds, digits: 1)) s wall);
                writing for \(Measure.format(seconds, digits: 0)) s of wall time (\(Measure.format(seconds * speedup / 60, digits: 0)) device-minutes each on the real schedule), then to quiescence, then \(Measure.format(idleSeconds, digits: 0)) s idle (polls only);
                baseline: one device alone for \(Measure.format(baselineSeconds, digits: 0)) s, same schedule and mix, writing \(Measure.format(baselineWriteFactor, digits: 0))x as often (mean \(Measure.format(wallWriteSeconds / baselineWriteFactor, digits: 2)) s wall).
                Client and server share this machine's \(ProcessInfo.processInfo.activeProcessorCount) cores: every figure is a floor.

                """)
        }
    }

    // MARK: Server

    static func user(_ index: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", index))!
    }

    /// Every user starts with rows the server made (through the triggers): 4 activities, 3
    /// finished sessions, 4 tasks and 2 task lists, so devices have shared rows to edit at once.
    static func seed(_ admin: Connection, users: Int) throws {
        let owner = "('00000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid"
        try admin.execute(
            script: """
                insert into public.activities (id, user_id, name, color, sort_order, updated_ms, device_id)
                  select gen_random_uuid(), \(owner), 'Activity ' || n, '#10' || n || '0F0', n, 1, 'seed'
                  from generate_series(0, \(users - 1)) u, generate_series(1, 4) n;
                insert into public.sessions (id, user_id, activity_id, started_ms, ended_ms, note, updated_ms, device_id)
                  select gen_random_uuid(), a.user_id, a.id, 1700000000000 + n * 60000, 1700000000000 + n * 60000 + 30000, 'seeded ' || n, 1, 'seed'
                  from public.activities a, generate_series(1, 3) n where a.name = 'Activity 1';
                insert into public.tasks (id, user_id, title)
                  select gen_random_uuid(), \(owner), 'Task ' || n from generate_series(0, \(users - 1)) u, generate_series(1, 4) n;
                insert into public.task_lists (id, user_id, name, position)
                  select gen_random_uuid(), \(owner), 'List ' || n, n from generate_series(0, \(users - 1)) u, generate_series(1, 2) n;
                analyze;
                """)
    }

    /// What the run reads from PostgreSQL: the CPU time of every process of the cluster (the
    /// postmaster, its live children, and the children it has reaped), pg_stat_database, the
    /// sequence, and samples of pg_stat_activity's wait events.
    struct ServerProbe: Sendable {
        let url: String
        let postmaster: Int32

        init(_ server: SyncBenchmark.Server) throws {
            url = server.url
            let pidFile = server.cluster.directory.appendingPathComponent("data/postmaster.pid")
            let text = try String(contentsOf: pidFile, encoding: .utf8)
            postmaster = Int32(text.split(separator: "\n").first ?? "") ?? 0
        }

        /// User plus system seconds of the postmaster, its reaped children (cutime, cstime)
        /// and every live child (backends, checkpointer, walwriter, autovacuum...).
        func cpuSeconds() -> Double {
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            var total = 0.0
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            for name in processes {
                guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                // Fields after the command name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 14, let parent = Int32(fields[1]) else { continue }
                if pid == postmaster {
                    total += fields[11...14].compactMap { Double($0) }.reduce(0, +) / ticks
                } else if parent == postmaster {
                    total += fields[11...12].compactMap { Double($0) }.reduce(0, +) / ticks
                }
            }
            return total
        }

        struct Counters {
            var deadlocks = 0
            var commits = 0
            var rollbacks = 0
            var sequence: Int64 = 0
        }

        func counters() throws -> Counters {
            let connection = try Connection(url: url)
            // Backends report their statistics at most once a second.
            _ = try connection.execute("select pg_stat_clear_snapshot()")
            let row = try connection.execute(
                """
                select deadlocks, xact_commit, xact_rollback, (select last_value from public.sync_server_seq)
                from pg_stat_database where datname = current_database()
                """
            ).rows.first
            return Counters(
                deadlocks: Int(row?[0] ?? "") ?? 0, commits: Int(row?[1] ?? "") ?? 0, rollbacks: Int(row?[2] ?? "") ?? 0,
                sequence: Int64(row?[3] ?? "") ?? 0)
        }

        func sequence() -> Int64 {
            guard let connection = try? Connection(url: url) else { return 0 }
            return Int64((try? connection.execute("select last_value from public.sync_server_seq").scalar) ?? "") ?? 0
        }
    }

    /// Samples pg_stat_activity every 50 ms on a thread of its own (libpq blocks): how many
    /// client backends are in a transaction, and what the waiting ones wait on.
    final class WaitSampler: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private var samples = 0
        private var busy = 0
        private var waits: [String: Int] = [:]
        private var threads = 0
        private let done = DispatchSemaphore(value: 0)

        init(url: String) {
            let thread = Thread { [self] in
                defer { done.signal() }
                guard let connection = try? Connection(url: url) else { return }
                while !lock.withLock({ stopped }) {
                    let result = try? connection.execute(
                        """
                        select state, coalesce(wait_event_type, ''), coalesce(wait_event, '') from pg_stat_activity
                        where backend_type = 'client backend' and pid <> pg_backend_pid() and datname = current_database()
                        """)
                    let threadCount = Self.threadCount()
                    lock.withLock {
                        threads = max(threads, threadCount)
                        samples += 1
                        for row in result?.rows ?? [] where row[0] != "idle" {
                            busy += 1
                            if let type = row[1], !type.isEmpty, type != "Client" {
                                waits["\(type):\(row[2] ?? "")", default: 0] += 1
                            }
                        }
                    }
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            thread.start()
        }

        /// Stops sampling: the mean busy backends per sample, each wait's mean backends, and
        /// the most threads this process had.
        func stop() -> (busy: Double, waits: [(String, Double)], threads: Int) {
            lock.withLock { stopped = true }
            done.wait()
            return lock.withLock {
                let count = Double(max(1, samples))
                return (Double(busy) / count, waits.sorted { $0.value > $1.value }.map { ($0.key, Double($0.value) / count) }, threads)
            }
        }

        /// This process's threads now (Linux: /proc/self/status).
        static func threadCount() -> Int {
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
            let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
            return line.flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        }
    }

    // MARK: Devices

    struct Device: Sendable {
        let index: Int
        let name: String
        let user: UUID
        let store: SyncStore
        let engine: SyncEngine
    }

    static func deviceDirectory() -> URL {
        let memory = URL(fileURLWithPath: "/dev/shm")
        let root = FileManager.default.isWritableFile(atPath: memory.path) ? memory : FileManager.default.temporaryDirectory
        let directory = root.appendingPathComponent("hope-sync-fleet-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func makeDevices(
        users: [UUID], settings: Settings, transport: PostgresTransport, log: FleetLog, directory: URL, firstIndex: Int
    ) throws -> [Device] {
        var devices: [Device] = []
        for (userIndex, user) in users.enumerated() {
            for slot in 0..<settings.devicesPerUser where firstIndex == 0 || slot == 0 {
                let index = firstIndex + userIndex * settings.devicesPerUser + slot
                let name = String(format: "dev-%05d", index)
                let store = try SyncStore(
                    path: directory.appendingPathComponent("\(name).sqlite").path, schema: GeneratedSchema.app, userID: user, deviceID: name
                )
                let engine = SyncEngine(
                    store: store, transport: FleetTransport(base: transport, log: log, device: name), configuration: settings.configuration
                ) { Credentials(userID: user, accessToken: "unused") }
                devices.append(Device(index: index, name: name, user: user, store: store, engine: engine))
            }
        }
        return devices
    }

    struct PhaseResult {
        let seconds: Double
        let devices: Int
        let serverCPU: Double
        let clientCPU: Double
        let counters: (before: ServerProbe.Counters, after: ServerProbe.Counters)
        let busy: Double
        let waits: [(String, Double)]
        let threads: Int
        let writes: WriteCounts.Snapshot
        let queryBusySeconds: Double
        /// Every pass error from the phase's start on (the drain and idle phases included).
        let passErrors: PassErrors

        var deviceMinutes: Double { Double(devices) * seconds / 60 }
    }

    /// Starts every engine (staggered over one poll interval, as a fleet's clocks are), lets
    /// every device write on its random schedule for `seconds`, and stops the writers.
    /// With `writeSeconds` nil nobody writes: the engines (already started) only poll.
    static func run(
        _ devices: [Device], seconds: Double, writeSeconds: Double?, settings: Settings, probe: ServerProbe, timings: RequestTimings
    ) async throws -> PhaseResult {
        let writes = WriteCounts()
        let passErrors = PassErrors()
        let before = try probe.counters()
        timings.reset()
        let sampler = WaitSampler(url: probe.url)
        let serverBefore = probe.cpuSeconds()
        let clientBefore = Measure.cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        let poll = settings.configuration.pollInterval.timeInterval
        await withTaskGroup(of: Void.self) { group in
            for device in devices {
                group.addTask {
                    var random = SplitMix64(seed: settings.seed &* 1_000_003 &+ UInt64(device.index))
                    guard let writeSeconds else {
                        try? await Task.sleep(for: .nanoseconds(deadline - min(deadline, DispatchTime.now().uptimeNanoseconds)))
                        return
                    }
                    try? await Task.sleep(for: .seconds(Double.random(in: 0..<poll, using: &random)))
                    passErrors.watch(device.engine)
                    await device.engine.start()
                    await writeLoop(device, until: deadline, meanSeconds: writeSeconds, random: &random, counts: writes)
                }
            }
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let serverCPU = probe.cpuSeconds() - serverBefore
        let clientCPU = Measure.cpuSeconds() - clientBefore
        let activity = sampler.stop()
        try await Task.sleep(for: .seconds(1.2))
        let after = try probe.counters()
        return PhaseResult(
            seconds: elapsed, devices: devices.count, serverCPU: serverCPU, clientCPU: clientCPU, counters: (before, after),
            busy: activity.busy, waits: activity.waits, threads: activity.threads, writes: writes.snapshot,
            queryBusySeconds: timings.seconds(.query),
            passErrors: passErrors)
    }

    /// One device's writes: new rows, edits of its user's rows (the same few rows edited on
    /// every device of the user, so merges happen), deletes, over all four tables.
    static func writeLoop(_ device: Device, until deadline: UInt64, meanSeconds: Double, random: inout SplitMix64, counts: WriteCounts)
        async
    {
        while true {
            let wait = -log(Double.random(in: Double.ulpOfOne..<1, using: &random)) * meanSeconds
            let now = DispatchTime.now().uptimeNanoseconds
            if now + UInt64(wait * 1e9) >= deadline {
                // The phase lasts its whole time whether or not another write fits in it.
                try? await Task.sleep(for: .nanoseconds(deadline - min(now, deadline)))
                break
            }
            try? await Task.sleep(for: .seconds(wait))
            let action = WriteAction.pick(&random)
            let pick = Int(truncatingIfNeeded: random.next() >> 1)
            let serial = Int(truncatingIfNeeded: random.next() % 1_000_000)
            let name = device.name
            do {
                let wrote = try await device.store.write { writer in
                    try action.apply(writer, pick: pick, serial: serial, device: name)
                }
                counts.add(action, wrote: wrote)
            } catch {
                counts.failed(action, error)
            }
        }
    }

    struct Quiescence {
        let seconds: Double
        let reached: Bool
        let waiting: [String]

        var line: String {
            reached
                ? "quiet in \(Measure.format(seconds, digits: 1)) s"
                : "NOT quiet after \(Measure.format(seconds, digits: 0)) s: \(waiting.prefix(8).joined(separator: ", "))"
        }
    }

    /// With the writers stopped, the engines keep their schedule until every device has nothing
    /// dirty or queued and has finished a pass after the server's last accepted write.
    static func drain(_ devices: [Device], settings: Settings, probe: ServerProbe) async -> Quiescence {
        let start = Date()
        let limit = max(60, 30 * settings.configuration.pollInterval.timeInterval)
        var sequence = probe.sequence()
        var sequenceMoved = Date()
        var waiting: [String] = []
        while Date().timeIntervalSince(start) < limit {
            try? await Task.sleep(for: .milliseconds(250))
            let now = probe.sequence()
            if now != sequence {
                sequence = now
                sequenceMoved = Date()
            }
            waiting = []
            for device in devices {
                let local = try? await device.store.read { reader in
                    (try reader.dirtyCount(), try reader.pendingMutations().count)
                }
                let synced = await device.engine.status.lastSyncedAt
                guard let local, local == (0, 0), let synced, synced > sequenceMoved.addingTimeInterval(0.05) else {
                    waiting.append(device.name)
                    continue
                }
            }
            if waiting.isEmpty { return Quiescence(seconds: Date().timeIntervalSince(start), reached: true, waiting: []) }
        }
        return Quiescence(seconds: Date().timeIntervalSince(start), reached: false, waiting: waiting)
    }

    // MARK: Report

    static func printReport(settings: Settings, log: FleetLog, baseline: PhaseResult, fleet: PhaseResult, idle: PhaseResult) {
        let alone = log.stats(.baseline)
        let many = log.stats(.fleet)
        let quiet = log.stats(.idle)
        print(
            "requests             fleet writing: count    per s  p50 ms  p99 ms  max ms │ alone: count  p50 ms  p99 ms │ fleet/alone p50   p99"
        )
        func ratio(_ a: Double, _ b: Double) -> String { b > 0 && a > 0 ? String(format: "%6.2f", a / b) : "     -" }
        for kind in RequestKind.allCases {
            let f = many[kind] ?? LatencyStats(samples: [])
            let b = alone[kind] ?? LatencyStats(samples: [])
            guard f.count > 0 || b.count > 0 else { continue }
            print(
                kind.label.padding(toLength: 28, withPad: " ", startingAt: 0)
                    + String(
                        format: "%13d  %7.1f  %6.2f  %6.2f  %6.1f │ %12d  %6.2f  %6.2f │ ", f.count, Double(f.count) / fleet.seconds,
                        f.p50 * 1e3,
                        f.p99 * 1e3, f.max * 1e3, b.count, b.p50 * 1e3, b.p99 * 1e3)
                    + "      \(ratio(f.p50, b.p50)) \(ratio(f.p99, b.p99))")
        }
        let idlePulls = quiet[.pull] ?? LatencyStats(samples: [])
        let aloneIdle = alone[.idlePull] ?? LatencyStats(samples: [])
        print(
            "pull, fleet idle (nobody writes)".padding(toLength: 28, withPad: " ", startingAt: 0)
                + String(
                    format: "%13d  %7.1f  %6.2f  %6.2f  %6.1f │ %12d  %6.2f  %6.2f │ ", idlePulls.count,
                    Double(idlePulls.count) / idle.seconds,
                    idlePulls.p50 * 1e3, idlePulls.p99 * 1e3, idlePulls.max * 1e3, aloneIdle.count, aloneIdle.p50 * 1e3, aloneIdle.p99 * 1e3
                )
                + "      \(ratio(idlePulls.p50, aloneIdle.p50)) \(ratio(idlePulls.p99, aloneIdle.p99))")
        print(
            "(latency as the device sees it, from the call to the answer, waiting for one of the pool's \(settings.pool) connections included;"
                + " idle: a pull that found no rows; the last line's baseline is the device alone's idle pulls)")
        let rows = log.rowCounts(.fleet)
        print(
            "fleet writing: rows pushed \(rows.pushed) (\(Measure.format(Double(rows.pushed) / fleet.seconds)) /s), pulled \(rows.pulled) (\(Measure.format(Double(rows.pulled) / fleet.seconds)) /s);"
                + " pool connections busy (begin to commit, mean): writing \(Measure.format(fleet.queryBusySeconds / fleet.seconds, digits: 2)),"
                + " idle \(Measure.format(idle.queryBusySeconds / idle.seconds, digits: 2)), alone \(Measure.format(baseline.queryBusySeconds / baseline.seconds, digits: 3)) of \(settings.pool)"
        )

        for (name, phase, result) in [("writing", FleetLog.Phase.fleet, fleet), ("idle", .idle, idle), ("alone", .baseline, baseline)] {
            let counts = log.pullsPerDevice(phase)
            guard let first = counts.first, let last = counts.last else { continue }
            let perSecond = { (count: Int) in Measure.format(Double(count) / result.seconds, digits: 2) }
            print(
                "pull requests per device per second, \(name): min \(perSecond(first)), median \(perSecond(counts[counts.count / 2])), max \(perSecond(last))"
                    + " (\(GeneratedSchema.tables.count) tables, a poll every \(settings.configuration.pollInterval))")
        }

        print("\nserver                                       fleet writing   fleet idle        alone")
        func line(_ label: String, _ values: [Double], digits: Int = 2) {
            print(
                label.padding(toLength: 44, withPad: " ", startingAt: 0)
                    + values.map { $0.isFinite ? String(format: "%13.\(digits)f", $0) : "            -" }.joined(separator: " "))
        }
        let phases = [fleet, idle, baseline]
        let transactions = { (r: PhaseResult) in Double(r.counters.after.commits - r.counters.before.commits) }
        let sequence = { (r: PhaseResult) in Double(r.counters.after.sequence - r.counters.before.sequence) }
        line("wall seconds", phases.map(\.seconds), digits: 1)
        line("device-minutes (compressed)", phases.map(\.deviceMinutes))
        line("server CPU s (all cluster processes)", phases.map(\.serverCPU))
        line("server CPU, share of one core", phases.map { $0.serverCPU / $0.seconds })
        line("server CPU s per device-minute", phases.map { $0.serverCPU / $0.deviceMinutes }, digits: 4)
        line("  per device-minute of the real schedule", phases.map { $0.serverCPU / $0.deviceMinutes / settings.speedup }, digits: 4)
        line("transactions committed /s", phases.map { transactions($0) / $0.seconds }, digits: 1)
        line("server CPU µs per transaction", phases.map { $0.serverCPU / transactions($0) * 1e6 }, digits: 0)
        line("server_seq numbers taken /s (nextval)", phases.map { sequence($0) / $0.seconds }, digits: 1)
        line("client backends in a transaction (mean)", phases.map(\.busy))
        line("client CPU s (this process)", phases.map(\.clientCPU))
        line("client threads (most seen)", phases.map { Double($0.threads) }, digits: 0)
        line("deadlocks (pg_stat_database)", phases.map { Double($0.counters.after.deadlocks - $0.counters.before.deadlocks) }, digits: 0)
        line("rollbacks (pg_stat_database)", phases.map { Double($0.counters.after.rollbacks - $0.counters.before.rollbacks) }, digits: 0)
        for (name, phase) in [("fleet writing", fleet), ("fleet idle", idle), ("alone", baseline)] {
            print(
                "waits, \(name) (mean backends waiting, pg_stat_activity every 50 ms): "
                    + (phase.waits.isEmpty
                        ? "none" : phase.waits.prefix(6).map { "\($0.0) \(Measure.format($0.1, digits: 3))" }.joined(separator: ", ")))
        }

        print("\nlocal writes (fleet): " + fleet.writes.line + "\nlocal writes (alone): " + baseline.writes.line)
        let errors = log.errors()
        print(
            "errors the transport returned, by phase, request and code: "
                + (errors.isEmpty ? "none" : errors.map { "\($0.key) x\($0.value)" }.joined(separator: "; ")))
        for (name, passes) in [("fleet", fleet.passErrors.counts), ("alone", baseline.passErrors.counts)] {
            print(
                "passes that ended in an error (the engines' status), \(name), from its start to its engines' stop: "
                    + (passes.isEmpty ? "none" : passes.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: "; "))
            )
        }
    }

    // MARK: The check

    struct Check {
        var ackedRows = 0
        var checkedColumns = 0
        var lostToNewer = 0
        var lostToLaterWrite = 0
        var failures: [String] = []
        var failureCount = 0
        var missingRows = 0
        var devicesConverged = 0
        var devices = 0
        var mismatchedRows = 0
        var divergences: [String] = []
        var dirty = 0
        var pending = 0
        var rejected = 0
        var conflicted = 0
        var rejectedExamples: [String] = []

        mutating func fail(_ message: String) {
            failureCount += 1
            if failures.count < 10 { failures.append(message) }
        }

        func print() {
            let acknowledged = failureCount == 0 && missingRows == 0
            let converged = devicesConverged == devices && dirty == 0 && pending == 0
            Swift.print(
                """

                CHECK acknowledged writes: \(acknowledged ? "ok" : "FAILED") — \(ackedRows) acknowledged row writes, \(checkedColumns) column values compared;
                  \(lostToNewer) overwritten by a newer (updated_ms, device_id) of the same column (lww), \(lostToLaterWrite) by a write acknowledged later (version tables),
                  \(missingRows) rows missing on the server, \(failureCount) values lost otherwise
                CHECK convergence: \(converged ? "ok" : "FAILED") — \(devicesConverged) of \(devices) devices hold exactly their user's server rows (every column);
                  \(mismatchedRows) rows differ; left dirty \(dirty), queued \(pending), rejected list \(rejected), conflicted list \(conflicted)
                """)
            for failure in failures { Swift.print("  lost: \(failure)") }
            for divergence in divergences { Swift.print("  differs: \(divergence)") }
            for example in rejectedExamples { Swift.print("  rejected: \(example)") }
        }
    }

    static func verify(_ devices: [Device], log: FleetLog, server: SyncBenchmark.Server) async throws -> Check {
        let reader = PostgresTransport(url: server.url)
        var serverRows: [UUID: [String: [String: ColumnValues]]] = [:]
        for user in Set(devices.map(\.user)) {
            for table in GeneratedSchema.tables {
                var rows: [String: ColumnValues] = [:]
                var cursor: Int64 = 0
                while true {
                    let page = try await reader.pull(
                        table, after: cursor, limit: SyncConfiguration.serverRowCap, as: Credentials(userID: user, accessToken: ""))
                    for row in page.rows { rows[row["id"]?.text ?? ""] = row }
                    guard page.receivedCount == SyncConfiguration.serverRowCap, let last = page.lastServerSeq else { break }
                    cursor = last
                }
                serverRows[user, default: [:]][table.name] = rows
            }
        }
        var check = Check()
        let acks = log.acknowledged()
        check.ackedRows = acks.count
        let byRow = Dictionary(grouping: acks) { "\($0.table)/\($0.id)" }
        let tables = Dictionary(uniqueKeysWithValues: GeneratedSchema.tables.map { ($0.name, $0) })
        for ack in acks {
            guard let table = tables[ack.table] else { continue }
            guard let row = serverRows[ack.user]?[ack.table]?[ack.id] else {
                check.missingRows += 1
                check.fail("\(ack.table) \(ack.id) from \(ack.device): no such row on the server")
                continue
            }
            if table.conflict == .lww {
                let sent = ack.values["column_stamps"]?.text.flatMap(ColumnStamps.init(json:))
                let held = row["column_stamps"]?.text.flatMap(ColumnStamps.init(json:))
                let pair = { (values: ColumnValues) -> WriteStamp? in
                    guard let ms = values["updated_ms"]?.int, let device = values["device_id"]?.text else { return nil }
                    return WriteStamp(ms: ms, deviceID: device)
                }
                for column in ack.claimed {
                    guard let stamp = sent?[column] ?? pair(ack.values) else { continue }
                    check.checkedColumns += 1
                    if row[column] == ack.values[column] { continue }
                    if let current = held?[column] ?? pair(row), current > stamp {
                        check.lostToNewer += 1
                    } else {
                        check.fail(
                            "\(ack.table).\(column) of \(ack.id) from \(ack.device) at \(stamp): sent \(describe(ack.values[column])), server \(describe(row[column])) at \(describe(held?[column]))"
                        )
                    }
                }
            } else {
                for column in ack.claimed {
                    check.checkedColumns += 1
                    if row[column] == ack.values[column] { continue }
                    let later = byRow["\(ack.table)/\(ack.id)"]?.contains { other in
                        other.acked != ack.acked && other.acked > ack.sent && other.claimed.contains(column)
                            && other.values[column] != ack.values[column]
                    }
                    if later == true {
                        check.lostToLaterWrite += 1
                    } else {
                        check.fail(
                            "\(ack.table).\(column) of \(ack.id) from \(ack.device) (\(ack.guarded ? "guarded update" : "upsert")): sent \(describe(ack.values[column])), server \(describe(row[column]))"
                        )
                    }
                }
            }
        }

        check.devices = devices.count
        for device in devices {
            var same = true
            for table in GeneratedSchema.tables {
                let local = try await device.store.read { reader in try reader.rowValues(of: table.name) }
                let mine = Dictionary(local.map { ($0["id"]?.text ?? "", $0) }, uniquingKeysWith: { first, _ in first })
                let theirs = serverRows[device.user]?[table.name] ?? [:]
                for id in Set(mine.keys).union(theirs.keys) where mine[id] != theirs[id] {
                    same = false
                    check.mismatchedRows += 1
                    if check.divergences.count < 10 {
                        let columns = table.columnNames.filter { mine[id]?[$0] != theirs[id]?[$0] }
                        check.divergences.append(
                            "\(device.name) \(table.name) \(id): "
                                + columns.map { "\($0) device \(describe(mine[id]?[$0])) server \(describe(theirs[id]?[$0]))" }.joined(
                                    separator: ", "))
                    }
                }
            }
            if same { check.devicesConverged += 1 }
            let lists = try await device.store.read { reader in
                (
                    try reader.dirtyCount(), try reader.pendingMutations().count, try reader.rejectedMutations(),
                    try reader.conflictedMutations().count
                )
            }
            check.dirty += lists.0
            check.pending += lists.1
            check.rejected += lists.2.count
            check.conflicted += lists.3
            for rejected in lists.2 where check.rejectedExamples.count < 5 {
                check.rejectedExamples.append(
                    "\(device.name) \(rejected.table) \(rejected.rowID): \(String(describing: rejected.serverError))")
            }
        }
        return check
    }

    /// Pushes of N users wait on their owners' locks (held by another session) while
    /// an unrelated user pulls through the same transport: does the pull get through? It does
    /// while N < pool; at N = pool every connection waits on a lock and the pull waits too.
    static func waitingPushesProbe(_ server: SyncBenchmark.Server, pool: Int) async throws -> String {
        var results: [String] = []
        for waiting in Array(Set([1, pool / 2, pool - 1, pool])).sorted() where waiting > 0 {
            let transport = PostgresTransport(configuration: .init(url: server.url, maximumConnections: pool))
            let holder = try Connection(url: server.url)
            let owners = (0..<waiting).map { user($0) }
            for owner in owners {
                _ = try holder.execute(
                    "select pg_advisory_lock(1752134757, hashtext($1))", [owner.uuidString.lowercased()])
            }
            let pushes = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for owner in owners {
                        group.addTask {
                            let row = activityRow(
                                id: UUID().uuidString.lowercased(), user: owner, ms: Int64(Date().timeIntervalSince1970 * 1000))
                            try await transport.upsert([row], into: Activity.table, as: Credentials(userID: owner, accessToken: ""))
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Every push waiting (or 3 s gone), then the locks go 1 s later whatever the pull is doing.
            let observer = try Connection(url: server.url)
            var blocked = 0
            for _ in 0..<300 where blocked < waiting {
                try await Task.sleep(for: .milliseconds(10))
                blocked =
                    Int(
                        try observer.execute(
                            "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'advisory'"
                        )
                        .scalar ?? "") ?? 0
            }
            let released = DispatchSemaphore(value: 0)
            let due = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
            let late = Locked(0.0)
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                late.value = Double(DispatchTime.now().uptimeNanoseconds - due) / 1e6
                _ = try? holder.execute("select pg_advisory_unlock_all()")
                released.signal()
            }
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await transport.pull(Activity.table, after: 0, limit: 1, as: Credentials(userID: user(49), accessToken: ""))
            let pulled = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            try await pushes.value
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    released.wait()
                    continuation.resume()
                }
            }
            results.append(
                "\(waiting) pushing (\(blocked) waiting): \(Measure.format(pulled, digits: 1)) ms"
                    + " (the release, on DispatchQueue.global(), ran \(Measure.format(late.value, digits: 0)) ms late)")
        }
        return "a pull of another user while N pushes wait on their owners' locks (released 1 s later), same transport, pool of \(pool): "
            + results.joined(separator: ", ")
    }

    /// How many sequence numbers one upsert takes: of a new row, of an update that wins a
    /// column, and of a repeat that wins nothing (the trigger also runs for the proposed row of
    /// an upsert that turns into an update).
    static func sequenceProbe(_ server: SyncBenchmark.Server, user: UUID) async throws -> (new: Int64, winning: Int64, losing: Int64) {
        let transport = PostgresTransport(url: server.url)
        let credentials = Credentials(userID: user, accessToken: "")
        let table = Activity.table
        let id = UUID().uuidString.lowercased()
        let ms = Int64(Date().timeIntervalSince1970 * 1000)
        func row(_ ms: Int64) -> ColumnValues { activityRow(id: id, user: user, ms: ms) }
        func taken(_ values: ColumnValues) async throws -> Int64 {
            let before = Int64(try server.admin.execute("select last_value from public.sync_server_seq").scalar ?? "") ?? 0
            try await transport.upsert([values], into: table, as: credentials)
            return (Int64(try server.admin.execute("select last_value from public.sync_server_seq").scalar ?? "") ?? 0) - before
        }
        let new = try await taken(row(ms))
        let winning = try await taken(row(ms + 1))
        let losing = try await taken(row(ms + 1))
        return (new, winning, losing)
    }

    /// An activity as a device pushes it: every column but server_seq, each stamped at `ms`.
    static func activityRow(id: String, user: UUID, ms: Int64) -> ColumnValues {
        let stamp = WriteStamp(ms: ms, deviceID: "probe")
        let stamps = ColumnStamps(
            Dictionary(uniqueKeysWithValues: ["name", "color", "archived", "sort_order", "metadata", "deleted_ms"].map { ($0, stamp) }))
        let values: [String: SyncValue] = [
            "id": .text(id), "user_id": .text(user.uuidString.lowercased()), "name": .text("probe \(ms)"), "color": .text("#000000"),
            "archived": .bool(false), "sort_order": .double(0), "metadata": .null, "updated_ms": .int(ms), "deleted_ms": .null,
            "device_id": .text("probe"), "column_stamps": .text(stamps.json),
        ]
        let columns = Activity.table.columnNames.filter { $0 != "server_seq" }
        return ColumnValues(columns: columns, values: columns.map { values[$0] ?? .null })
    }

    static func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return String(describing: value)
    }
}

// MARK: Writes

enum WriteAction: String, CaseIterable, Sendable {
    case startSession, stopSession, editSession, deleteSession
    case newActivity, editActivity
    case newTask, editTask, deleteTask
    case newList, editList

    /// Weights out of 100: a time tracker's mix, sessions first.
    var weight: Int {
        switch self {
        case .startSession: 18
        case .stopSession: 14
        case .editSession: 18
        case .deleteSession: 5
        case .newActivity: 4
        case .editActivity: 15
        case .newTask: 5
        case .editTask: 10
        case .deleteTask: 3
        case .newList: 2
        case .editList: 6
        }
    }

    static func pick(_ random: inout SplitMix64) -> WriteAction {
        var roll = Int(random.next() % 100)
        for action in allCases {
            if roll < action.weight { return action }
            roll -= action.weight
        }
        return .editSession
    }

    /// Applies the write; false when there was nothing to apply it to.
    func apply(_ writer: StoreWriter, pick: Int, serial: Int, device: String) throws -> Bool {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let note = "\(device) #\(serial)"
        switch self {
        case .startSession:
            let activities = try writer.fetchAll(Activity.self)
            guard !activities.isEmpty else { return false }
            let source = Session.Source.allCases[pick % 3]
            _ = try writer.save(Session(activityId: activities[pick % activities.count].id, startedMs: now, source: source))
        case .stopSession:
            guard var open = try writer.fetchAll(Session.self, where: "ended_ms IS NULL", orderBy: "started_ms DESC").first else {
                return false
            }
            open.endedMs = max(open.startedMs + 1, now)
            _ = try writer.save(open)
        case .editSession:
            // The user's few latest sessions: every device of the user edits the same ones.
            let recent = try writer.fetchAll(Session.self, orderBy: "started_ms DESC").prefix(4)
            guard !recent.isEmpty else { return false }
            var session = recent[recent.startIndex + pick % recent.count]
            if pick % 5 == 0 { session.source = Session.Source.allCases[serial % 3] } else { session.note = note }
            _ = try writer.save(session)
        case .deleteSession:
            let older = try writer.fetchAll(Session.self, where: "ended_ms IS NOT NULL", orderBy: "started_ms DESC").dropFirst(2)
            guard !older.isEmpty else { return false }
            return try writer.delete(Session.self, id: older[older.startIndex + pick % older.count].id)
        case .newActivity:
            _ = try writer.save(Activity(name: "Activity \(note)", sortOrder: Double(serial % 100)))
        case .editActivity:
            let activities = try writer.fetchAll(Activity.self)
            guard !activities.isEmpty else { return false }
            var activity = activities[pick % activities.count]
            switch serial % 4 {
            case 0: activity.name = "Renamed \(note)"
            case 1: activity.color = String(format: "#%06X", serial % 0xFFFFFF)
            case 2: activity.sortOrder = Double(serial % 1000) / 8
            default: activity.metadata = #"{"by": "\#(device)", "n": \#(serial)}"#
            }
            _ = try writer.save(activity)
        case .newTask:
            _ = try writer.save(TaskItem(title: "Task \(note)"))
        case .editTask:
            let tasks = try writer.fetchAll(TaskItem.self)
            guard !tasks.isEmpty else { return false }
            var task = tasks[pick % tasks.count]
            switch serial % 3 {
            case 0: task.done.toggle()
            case 1: task.title = "Task renamed \(note)"
            default: task.notes = note
            }
            _ = try writer.save(task)
        case .deleteTask:
            let tasks = try writer.fetchAll(TaskItem.self)
            guard tasks.count > 3 else { return false }
            return try writer.delete(TaskItem.self, id: tasks[pick % tasks.count].id)
        case .newList:
            _ = try writer.save(TaskList(name: "List \(note)", position: Double(serial % 100)))
        case .editList:
            let lists = try writer.fetchAll(TaskList.self)
            guard !lists.isEmpty else { return false }
            var list = lists[pick % lists.count]
            if serial % 2 == 0 { list.position = Double(serial % 1000) / 4 } else { list.name = "List renamed \(note)" }
            _ = try writer.save(list)
        }
        return true
    }
}

final class WriteCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var done: [WriteAction: Int] = [:]
    private var skipped = 0
    private var errors: [String: Int] = [:]

    struct Snapshot {
        let done: [WriteAction: Int]
        let skipped: Int
        let errors: [String: Int]

        var line: String {
            let total = done.values.reduce(0, +)
            return "\(total) ("
                + WriteAction.allCases.compactMap { action in done[action].map { "\(action.rawValue) \($0)" } }.joined(separator: ", ")
                + "), \(skipped) found nothing to change; errors: "
                + (errors.isEmpty ? "none" : errors.map { "\($0.key) x\($0.value)" }.joined(separator: "; "))
        }
    }

    func add(_ action: WriteAction, wrote: Bool) {
        lock.withLock {
            if wrote { done[action, default: 0] += 1 } else { skipped += 1 }
        }
    }

    func failed(_ action: WriteAction, _ error: any Error) {
        let code = (error as? SyncError).map { "\($0.code)" } ?? "\(type(of: error))"
        lock.withLock { errors["\(action.rawValue) \(code)", default: 0] += 1 }
    }

    var snapshot: Snapshot { lock.withLock { Snapshot(done: done, skipped: skipped, errors: errors) } }
}

/// The errors that ended the engines' passes, read from their status updates: a pass that
/// fails publishes its error as it leaves `.syncing` (later publishes repeat it and are not
/// counted again).
final class PassErrors: @unchecked Sendable {
    private let lock = NSLock()
    private var byCode: [String: Int] = [:]

    func watch(_ engine: SyncEngine) {
        let updates = engine.statusUpdates()
        Task {
            var previous: SyncStatus.Phase?
            for await status in updates {
                defer { previous = status.phase }
                guard previous == .syncing, status.phase != .syncing, let error = status.lastError else { continue }
                let key = "\(error.code) \(error.serverError?.code ?? "")".trimmingCharacters(in: .whitespaces)
                lock.withLock { byCode[key, default: 0] += 1 }
            }
        }
    }

    var counts: [String: Int] { lock.withLock { byCode } }
}

// MARK: Requests

enum RequestKind: String, CaseIterable, Sendable {
    case push, pull, idlePull, pullWithRows, guarded, fetch

    var label: String {
        switch self {
        case .push: "push (upsert)"
        case .pull: "pull (every)"
        case .idlePull: "  pull (idle)"
        case .pullWithRows: "  pull (with rows)"
        case .guarded: "guarded update"
        case .fetch: "fetch by key"
        }
    }
}

struct LatencyStats {
    let count: Int
    let p50: Double
    let p99: Double
    let max: Double

    init(samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func at(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[Int((q * Double(sorted.count - 1)).rounded())] }
        p50 = at(0.5)
        p99 = at(0.99)
        max = sorted.last ?? 0
    }
}

struct Acknowledged: Sendable {
    let device: String
    let user: UUID
    let table: String
    let id: String
    let values: ColumnValues
    /// The columns this write asked the server to take.
    let claimed: [String]
    let guarded: Bool
    let sent: UInt64
    let acked: UInt64
}

/// What every device's requests met, by phase: latencies, rows, errors, acknowledged writes.
final class FleetLog: @unchecked Sendable {
    enum Phase: String, Sendable {
        case baseline = "alone"
        case fleet
        case drain
        case idle
        case stopping
    }

    private let lock = NSLock()
    private var current = Phase.baseline
    private var latencies: [Phase: [RequestKind: [Double]]] = [:]
    private var rows: [Phase: (pushed: Int, pulled: Int)] = [:]
    private var errorCounts: [String: Int] = [:]
    private var acks: [Acknowledged] = []
    private var pullsByDevice: [Phase: [String: Int]] = [:]

    var phase: Phase {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    func request(_ kinds: [RequestKind], since start: UInt64, pushed: Int = 0, pulled: Int = 0) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        lock.withLock {
            for kind in kinds { latencies[current, default: [:]][kind, default: []].append(seconds) }
            rows[current, default: (0, 0)].pushed += pushed
            rows[current, default: (0, 0)].pulled += pulled
        }
    }

    func pulled(by device: String) {
        lock.withLock { pullsByDevice[current, default: [:]][device, default: 0] += 1 }
    }

    /// Pull requests per device in `phase`, fewest to most.
    func pullsPerDevice(_ phase: Phase) -> [Int] { lock.withLock { (pullsByDevice[phase] ?? [:]).values.sorted() } }

    func failed(_ kind: RequestKind, _ error: SyncError) {
        lock.withLock {
            let key = "\(current.rawValue) \(kind.rawValue) \(error.code) \(error.serverError?.code ?? "")"
            errorCounts[key.trimmingCharacters(in: .whitespaces), default: 0] += 1
        }
    }

    func acknowledge(_ writes: [Acknowledged]) {
        lock.withLock { acks += writes }
    }

    func stats(_ phase: Phase) -> [RequestKind: LatencyStats] {
        lock.withLock { (latencies[phase] ?? [:]).mapValues(LatencyStats.init) }
    }

    func rowCounts(_ phase: Phase) -> (pushed: Int, pulled: Int) { lock.withLock { rows[phase] ?? (0, 0) } }
    func errors() -> [(key: String, value: Int)] { lock.withLock { errorCounts.sorted { $0.key < $1.key } } }
    func acknowledged() -> [Acknowledged] { lock.withLock { acks } }
}

/// One device's view of the shared transport: times every request, counts its errors by code,
/// and records what each push and guarded update got acknowledged.
struct FleetTransport: SyncTransport {
    let base: PostgresTransport
    let log: FleetLog
    let device: String

    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) {
        let start = DispatchTime.now().uptimeNanoseconds
        do throws(SyncError) {
            try await base.upsert(rows, into: table, as: user)
        } catch {
            log.failed(.push, error)
            throw error
        }
        let acked = DispatchTime.now().uptimeNanoseconds
        log.request([.push], since: start, pushed: rows.count)
        let claimed = table.columns.filter { $0.role == .user || $0.role == .deletedMs }.map(\.name)
        log.acknowledge(
            rows.map { row in
                let stamped = row["column_stamps"]?.text.flatMap(ColumnStamps.init(json:)).map { stamps in
                    claimed.filter { stamps[$0] != nil }
                }
                return Acknowledged(
                    device: device, user: user.userID, table: table.name, id: row["id"]?.text ?? "", values: row,
                    claimed: stamped ?? claimed,
                    guarded: false, sent: start, acked: acked)
            })
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        let start = DispatchTime.now().uptimeNanoseconds
        do throws(SyncError) {
            let page = try await base.pull(table, after: cursor, limit: limit, as: user)
            log.request([.pull, page.receivedCount == 0 ? .idlePull : .pullWithRows], since: start, pulled: page.receivedCount)
            log.pulled(by: device)
            return page
        } catch {
            log.failed(.pull, error)
            throw error
        }
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        let start = DispatchTime.now().uptimeNanoseconds
        do throws(SyncError) {
            let answer = try await base.guardedUpdate(
                table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
            let acked = DispatchTime.now().uptimeNanoseconds
            log.request([.guarded], since: start)
            if !answer.isEmpty {
                log.acknowledge([
                    Acknowledged(
                        device: device, user: user.userID, table: table.name, id: id.uuidString.lowercased(), values: values,
                        claimed: values.columns, guarded: true, sent: start, acked: acked)
                ])
            }
            return answer
        } catch {
            log.failed(.guarded, error)
            throw error
        }
    }

    func fetch(_ table: TableSchema, id: UUID, columns: [String], as user: Credentials) async throws(SyncError) -> ColumnValues? {
        let start = DispatchTime.now().uptimeNanoseconds
        do throws(SyncError) {
            let row = try await base.fetch(table, id: id, columns: columns, as: user)
            log.request([.fetch], since: start)
            return row
        } catch {
            log.failed(.fetch, error)
            throw error
        }
    }
}

/// A value shared between threads.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A small seeded generator, so a run's write schedule can be repeated.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Duration {
    fileprivate var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
