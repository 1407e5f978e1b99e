import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
@_spi(Transport) import HopeSyncPostgres
import HopeSyncTestSupport

extension FleetBenchmark {
    struct Device: Sendable {
        let index: Int
        let name: String
        let user: UUID
        let store: SyncStore
        let engine: SyncEngine
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
                let engine = makeEngine(store: store, name: name, user: user, settings: settings, transport: transport, log: log)
                devices.append(Device(index: index, name: name, user: user, store: store, engine: engine))
            }
        }
        return devices
    }

    /// A device's engine: through the pull function (`usesFunctions`) or table by table, hearing
    /// `pokes` (which then stretch its idle poll) or polling alone.
    static func makeEngine(
        store: SyncStore, name: String, user: UUID, settings: Settings, transport: PostgresTransport, log: FleetLog,
        usesFunctions: Bool = true, pokes: (any PokeSource)? = nil
    ) -> SyncEngine {
        let watched = WatchedTransport(base: transport, usesFunctions: usesFunctions) { log.record($0, device: name) }
        return SyncEngine(store: store, transport: watched, configuration: settings.configuration, pokes: pokes) {
            Credentials(userID: user, accessToken: "unused")
        }
    }

    /// How the same devices sync in the idle phases after the first (the first: the pull function,
    /// polling alone, as the fleet ran).
    enum IdleProtocol {
        /// Table by table, the protocol before the pull function.
        case tables
        /// The pull function, with a Realtime channel joined (a fake one: nobody writes, so it
        /// never pokes), so the engine polls at its slower interval.
        case functionsWithPokes
    }

    /// The same devices (stores, names) with new engines on `idle`, started over one poll interval
    /// as a fleet's clocks are, and settled (each engine's first pass done).
    static func restarted(
        _ devices: [Device], on idle: IdleProtocol, settings: Settings, transport: PostgresTransport, log: FleetLog
    ) async -> [Device] {
        let pokes = idle == .functionsWithPokes ? FakePokes() : nil
        let moved = devices.map { device in
            Device(
                index: device.index, name: device.name, user: device.user, store: device.store,
                engine: makeEngine(
                    store: device.store, name: device.name, user: device.user, settings: settings, transport: transport, log: log,
                    usesFunctions: idle == .functionsWithPokes, pokes: pokes))
        }
        let poll = settings.configuration.pollInterval.seconds
        await withTaskGroup(of: Void.self) { group in
            for device in moved {
                group.addTask {
                    var random = SeededGenerator(seed: settings.seed &* 7_919 &+ UInt64(device.index))
                    try? await Task.sleep(for: .seconds(Double.random(in: 0..<poll, using: &random)))
                    await device.engine.start()
                }
            }
        }
        try? await Task.sleep(for: .seconds(poll))
        return moved
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

        /// Server CPU seconds per device-minute of the real (uncompressed) schedule.
        func serverCPUPerRealDeviceMinute(_ settings: Settings) -> Double { serverCPU / deviceMinutes / settings.speedup }
    }

    /// Starts every engine (staggered over one poll interval, as a fleet's clocks are), lets
    /// every device write on its random schedule for `seconds`, and stops the writers.
    /// With `writeSeconds` nil nobody writes: the engines (already started) only poll.
    static func runPhase(
        _ devices: [Device], seconds: Double, writeSeconds: Double?, settings: Settings, probe: ServerProbe, timings: RequestTimings,
        shared: SharedWrites? = nil
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
        let poll = settings.configuration.pollInterval.seconds
        await withTaskGroup(of: Void.self) { group in
            for device in devices {
                group.addTask {
                    var random = SeededGenerator(seed: settings.seed &* 1_000_003 &+ UInt64(device.index))
                    guard let writeSeconds else {
                        try? await Task.sleep(for: .nanoseconds(deadline - min(deadline, DispatchTime.now().uptimeNanoseconds)))
                        return
                    }
                    try? await Task.sleep(for: .seconds(Double.random(in: 0..<poll, using: &random)))
                    passErrors.watch(device.engine)
                    await device.engine.start()
                    await writeLoop(
                        device, until: deadline, meanSeconds: writeSeconds, random: &random, counts: writes, shared: shared)
                }
            }
        }
        let elapsed = Measure.since(start)
        let serverCPU = probe.cpuSeconds() - serverBefore
        let clientCPU = Measure.cpuSeconds() - clientBefore
        let activity = sampler.stop()
        try await Task.sleep(for: .seconds(1.2))
        let after = try probe.counters()
        return PhaseResult(
            seconds: elapsed, devices: devices.count, serverCPU: serverCPU, clientCPU: clientCPU, counters: (before, after),
            busy: activity.busy, waits: activity.waits, threads: activity.threads, writes: writes.snapshot,
            queryBusySeconds: timings.seconds(.query), passErrors: passErrors)
    }

    /// One device's writes: new rows, edits of its user's rows (the same few rows edited on
    /// every device of the user, so merges happen), deletes, over all four tables; with `shared`,
    /// some of them edits and new tasks of the shared lists its user may write.
    static func writeLoop(
        _ device: Device, until deadline: UInt64, meanSeconds: Double, random: inout SeededGenerator, counts: WriteCounts,
        shared: SharedWrites? = nil
    ) async {
        let sharedLists = shared?.scopes.writable(by: device.user) ?? []
        var sharedNumber = 0
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
            // No draw without shared lists, so FLEET_SCOPES=0 writes exactly what it always wrote.
            if let shared, !sharedLists.isEmpty, random.next() % FleetScopes.sharedWriteEvery == 0 {
                sharedNumber += 1
                await shared.write(device, lists: sharedLists, pick: pick, serial: serial, number: sharedNumber)
                continue
            }
            let (name, owner) = (device.name, shared.map { _ in device.user })
            do {
                let wrote = try await device.store.write { writer in
                    try action.apply(writer, pick: pick, serial: serial, device: name, owner: owner)
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
        let limit = max(60, 30 * settings.configuration.pollInterval.seconds)
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
                let local = try? await device.store.read { reader in (try reader.dirtyCount(), try reader.pendingMutations().count) }
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
}
