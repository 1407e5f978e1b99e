import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres

/// `bench fleet`: 200 devices of 50 users (4 each), every one a real SyncStore and a real
/// SyncEngine on the engine's own schedule (start(), debounced pushes, polls, backoff), its
/// intervals divided by a speed-up factor, writing on a random schedule for a bounded minute of
/// wall time against one PostgreSQL 15 with the generated SQL, through one PostgresTransport
/// whose pool all devices share (as PostgREST's db-pool is shared by every client). Then the
/// writers stop, every device syncs to quiescence on its schedule, and the run checks that every
/// acknowledged write is on the server (or lost only to a newer pair of the same column) and
/// that every device holds exactly its user's server rows; probes end the run.
///
/// The baseline, from the same run: one device alone with the same schedule and write mix, on
/// the same server and pool: per-request latency without contention, and its server CPU per
/// device-minute.
///
/// Settings (environment): FLEET_SPEEDUP (5), FLEET_SECONDS (60), FLEET_POOL (10),
/// FLEET_USERS (50), FLEET_DEVICES_PER_USER (4), FLEET_WRITE_SECONDS (15: the mean time between
/// one device's writes on the real schedule), FLEET_BASELINE_SECONDS (30),
/// FLEET_BASELINE_WRITE_FACTOR (10), FLEET_IDLE_SECONDS (15), FLEET_SEED (13), FLEET_SCOPES (0: the
/// number of shared task lists, each owned by one user and shared by its owner with others so
/// that each user is in 2-4; the devices then also edit and add tasks of their lists, and the
/// check covers them: ``FleetScopes``, ``SharedCheck``).
enum FleetBenchmark {
    static func run() async throws -> [Figure] {
        let settings = Settings()
        let cluster = try BenchCluster.start()
        let directory = Scratch.directory("hope-sync-fleet", inMemory: true) ?? Scratch.directory("hope-sync-fleet", inMemory: false)!
        defer {
            cluster.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        let database = try cluster.createDatabase("bench", generatedSchema: true)
        settings.printHeader(directory: directory)
        try seed(database, users: settings.users + 1)
        let scopes =
            settings.scopes > 0 ? FleetScopes(users: (0..<settings.users).map(user), scopes: settings.scopes, seed: settings.seed) : nil
        try scopes?.seed(database)
        if let scopes { print(scopes.summary + "\n") }
        let sharedWrites = scopes.map(SharedWrites.init)
        let probe = ServerProbe(url: database.url, postmaster: try cluster.postmasterPID())
        let log = FleetLog()
        let timings = RequestTimings()
        let shared = PostgresTransport(configuration: .init(url: database.url, maximumConnections: settings.pool, timings: timings))

        // The baseline: one device alone (the last user's first device), same schedule and mix.
        log.phase = .baseline
        let alone = try makeDevices(
            users: [user(settings.users)], settings: settings, transport: shared, log: log, directory: directory, firstIndex: 10_000)
        let baseline = try await runPhase(
            alone, seconds: settings.baselineSeconds, writeSeconds: settings.wallWriteSeconds / settings.baselineWriteFactor,
            settings: settings, probe: probe, timings: timings)
        log.phase = .drain
        let baselineQuiet = await drain(alone, settings: settings, probe: probe)
        for device in alone { await device.engine.stop() }

        // The fleet.
        let openStart = DispatchTime.now().uptimeNanoseconds
        let devices = try makeDevices(
            users: (0..<settings.users).map(user), settings: settings, transport: shared, log: log, directory: directory, firstIndex: 0)
        print("opened \(devices.count) device stores in \(Measure.format(Measure.since(openStart), digits: 1)) s\n")
        log.phase = .fleet
        let fleet = try await runPhase(
            devices, seconds: settings.seconds, writeSeconds: settings.wallWriteSeconds, settings: settings, probe: probe, timings: timings,
            shared: sharedWrites)
        log.phase = .drain
        let quiet = await drain(devices, settings: settings, probe: probe)
        // Then nobody writes: every device only polls (the idle load a fleet puts on a server).
        log.phase = .idle
        let idle = try await runPhase(
            devices, seconds: settings.idleSeconds, writeSeconds: nil, settings: settings, probe: probe, timings: timings)
        log.phase = .stopping
        for device in devices { await device.engine.stop() }
        // The same devices idle again, in the same run: on the protocol before the pull function,
        // then through it with a Realtime channel joined.
        func idleAgain(on idleProtocol: IdleProtocol, as phase: FleetLog.Phase) async throws -> PhaseResult {
            let restarted = await restarted(devices, on: idleProtocol, settings: settings, transport: shared, log: log)
            log.phase = phase
            let result = try await runPhase(
                restarted, seconds: settings.idleSeconds, writeSeconds: nil, settings: settings, probe: probe, timings: timings)
            log.phase = .stopping
            for device in restarted { await device.engine.stop() }
            return result
        }
        let idleTables = try await idleAgain(on: .tables, as: .idleTables)
        let idlePoked = try await idleAgain(on: .functionsWithPokes, as: .idlePoked)

        printReport(
            settings: settings, log: log, baseline: baseline, fleet: fleet, idle: idle, idleTables: idleTables, idlePoked: idlePoked)
        print("\nquiescence after the writers stopped: baseline device \(baselineQuiet.line); fleet \(quiet.line)")
        let check = try await verify(devices + alone, log: log, database: database, shared: sharedWrites)
        check.print()
        let idleCPU = idle.serverCPUPerRealDeviceMinute(settings)
        let idleTablesCPU = idleTables.serverCPUPerRealDeviceMinute(settings)
        let idlePokedCPU = idlePoked.serverCPUPerRealDeviceMinute(settings)
        print(
            "\nidle server CPU per device-minute (real schedule): table by table \(Measure.format(idleTablesCPU, digits: 5)) s;"
                + " pull function \(Measure.format(idleCPU, digits: 5)) s (new/old \(Measure.format(idleCPU / idleTablesCPU, digits: 3)));"
                + " pull function with a Realtime channel joined \(Measure.format(idlePokedCPU, digits: 5)) s (new/old \(Measure.format(idlePokedCPU / idleTablesCPU, digits: 3)))"
        )
        var figures = [
            Figure("fleet.lost_writes", Double(check.lostWrites), aim: 0, digits: 0),
            Figure("fleet.diverged_devices", Double(check.devices.count - check.devices.converged), aim: 0, digits: 0),
            Figure("fleet.idle_cpu_per_device_minute", idleCPU, aim: nil, digits: 5),
            Figure("fleet.idle_cpu_new_over_old", idleCPU / idleTablesCPU, aim: 0.1, digits: 3),
            Figure("fleet.idle_cpu_poked_over_old", idlePokedCPU / idleTablesCPU, aim: 0.1, digits: 3),
        ]
        if let sharedCheck = check.shared {
            figures += [
                Figure("fleet.shared_lost_writes", Double(sharedCheck.lostWrites), aim: 0, digits: 0),
                Figure("fleet.shared_diverged_devices", Double(sharedCheck.divergedDevices), aim: 0, digits: 0),
            ]
        }
        figures += try await probes(database, settings: settings, idleDevice: devices[0])
        return figures
    }

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
        /// Shared task lists (0: none, every row its owner's alone, as before sharing).
        let scopes: Int

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
            scopes = Int(value("FLEET_SCOPES", 0))
        }

        /// The engine's schedule with every interval divided by the speed-up.
        var configuration: SyncConfiguration {
            var configuration = SyncConfiguration()
            let real = SyncConfiguration()
            configuration.pollInterval = real.pollInterval / speedup
            configuration.pollIntervalWithPokes = real.pollIntervalWithPokes / speedup
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
                Fleet on one server: \(users * devicesPerUser) devices of \(users) users (\(devicesPerUser) each), real SyncStore + SyncEngine each,
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
}
