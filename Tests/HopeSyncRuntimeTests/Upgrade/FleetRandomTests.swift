import Foundation
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import HopeSyncUpgradeSchemaV1
import HopeSyncUpgradeSchemaV2
import Testing

@_spi(Transport) @testable import HopeSync

/// Devices on mixed builds (v1, v2, and a v1 that upgrades mid-run) and mixed protocols (d1 and
/// d4 pull through the server's pull function, d3 in half the runs, the others table by table;
/// d2 switches between the two at some of its launches) edit random columns of shared habits,
/// delete and restore them, through offline periods, lost answers, 5xx answers and restarts; in
/// a third of the runs the server loses its functions and gets them back, so the devices that
/// use them fall back to the tables and return (at a launch, or once the engine's retry interval
/// has passed); in a third, pages are a few rows. Oracle: every column of every row holds, on the
/// server and on every device, the value written with the largest pair for that column; no
/// device diverges. The server keeps its own clock; devices' clocks are near it, reset, or days
/// ahead (``DeviceClockKind``). In half the runs the engines run their schedules and hear pokes
/// through ``FakePokes`` (lost, late, doubled, connections dropped), and stop before the final
/// syncs. In a third of the runs the project raises `oldest_writer` to v2 mid-run (decision
/// 0051): the v1 builds then hold their writes (no rejected entry, no loop of refused pushes)
/// and keep pulling, and the v1 devices upgrade before the final syncs, when what they held
/// lands; every device ends having said hello with v2's version.
/// Runs: SYNC_RANDOM_RUNS (default 200); seed offset: SYNC_RANDOM_SEED.
@Suite struct FleetRandomTests {
    @Test func mixedBuildsKeepEveryColumnsNewestWrite() async throws {
        try await SeededRuns.recordFailures(defaultRuns: 200) { seed in try await FleetRun(seed: seed).run() }
    }
}

private struct FleetRun {
    let seed: UInt64
    let user = UUID()
    let serverClock = ManualClock()
    let server: InMemoryServer
    /// The pokes the devices hear, in the runs whose engines run (nil: only explicit syncs).
    let pokes: FakePokes?
    /// The engines' time (``SyncConfiguration/now``), which says when a device that fell back to
    /// the tables tries the server's functions again.
    let engineTime = ManualClock()

    init(seed: UInt64) {
        self.seed = seed
        server = MixedBuilds.server(clock: serverClock.read)
        var random = SeededGenerator(seed: seed &* 7_643)
        pokes =
            (seed / 2) % 2 == 1 ? FakePokes(seed: seed &* 37, faults: .drawn(&random), announcesWrites: (seed / 4) % 2 == 1) : nil
    }

    func run() async throws -> [String] {
        var random = SeededGenerator(seed: seed &* 6_151)
        let function = try #require(MixedBuilds.pullFunction)
        let d3Function = random.below(2) == 0 ? function : nil
        let outages = random.below(3) == 0
        var serverHasFunctions = true
        // The step at which the floor passes the v1 builds, in a third of the runs.
        let floorStep = random.below(3) == 0 ? 10 + random.below(30) : nil
        if floorStep != nil { await server.setOldestWriter(nil) }
        var configuration = TestDevice.configuration
        configuration.now = { [engineTime] in Date(timeIntervalSince1970: TimeInterval(engineTime.now) / 1_000) }
        // Small pages in a third of the runs: a pass of either protocol takes several requests,
        // and the pull function's rounds ask again while a page is full.
        if random.below(3) == 0 { configuration.pageSize = 2 + random.below(4) }
        var devices: [TestDevice] = []
        let builds = [
            ("d1", MixedBuilds.v1.pulling(through: function)), ("d2", MixedBuilds.v2), ("d3", MixedBuilds.v1.pulling(through: d3Function)),
            ("d4", MixedBuilds.v2.pulling(through: function)),
        ]
        for (name, schema) in builds {
            let kind = DeviceClockKind.pick(&random)
            let transport: any SyncTransport = pokes.map { PokingTransport(server, pokes: $0) } ?? server
            let device = try TestDevice(
                name, user: user, transport: transport, schema: schema, clock: kind.clock(server: serverClock, &random),
                configuration: configuration, pokes: pokes)
            if kind.syncsBeforeWriting { try await device.sync() }
            if pokes != nil { await device.engine.start() }
            devices.append(device)
        }
        defer { for device in devices { remove(device) } }
        var acknowledged: [ColumnValues] = []
        for step in 0..<50 {
            if step == floorStep {
                await server.setOldestWriter(MixedBuilds.v2.schemaVersion)
                // In half of them a day passes: the devices' next hello says so before they push.
                if random.below(2) == 0 { engineTime.advance(86_400_000) }
            }
            let index = random.below(devices.count)
            let device = devices[index]
            switch random.below(100) {
            case 0..<45: acknowledged += try await write(on: device, &random)
            case 45..<68: _ = try? await device.sync()
            case 68..<75: await device.engine.setNetworkEnabled(!(await device.engine.isNetworkEnabled))
            case 75..<80:
                await server.failNextRequests(
                    1, with: SyncError(.server, "down", serverError: ServerError(status: 503, code: "PGRST001", message: "down")))
            case 80..<86: await server.loseNextAnswers(1)
            case 86..<91:
                if pokes != nil { await device.engine.stop() }
                devices[index] = try device.restarted()
                if pokes != nil { await devices[index].engine.start() }
            case 91..<94 where device.schema.tables.count == MixedBuilds.v1.tables.count && device.deviceID == "d3":
                if pokes != nil { await device.engine.stop() }
                devices[index] = try device.upgradedToV2()
                if pokes != nil { await devices[index].engine.start() }
            case 94..<97:
                // d2 launched again as a build on the other protocol, on the same file.
                let d2Index = try #require(devices.firstIndex { $0.deviceID == "d2" })
                let d2 = devices[d2Index]
                if pokes != nil { await d2.engine.stop() }
                devices[d2Index] = try d2.reopened(with: d2.schema.pulling(through: d2.schema.pullFunction == nil ? function : nil))
                if pokes != nil { await devices[d2Index].engine.start() }
            case 97..<99 where outages:
                // The server's SQL loses its functions (an older paste) or gets them back; once
                // they are back, the devices that fell back try them again at a launch, or when
                // the engines' retry interval (ten minutes) has passed.
                serverHasFunctions.toggle()
                await server.setHasFunctions(serverHasFunctions)
                if serverHasFunctions, random.below(2) == 0 { engineTime.advance(600_000) }
            default:
                let elapsed = Int64(random.below(5_000))
                device.clock.advance(elapsed)
                serverClock.advance(elapsed)
                engineTime.advance(elapsed)
            }
        }
        if pokes != nil {
            // Each pass under way ends first: the checks below see no pass of the schedule.
            for device in devices { await device.engine.stopAndSettle() }
        }
        await server.clearFaults()
        var problems: [String] = []
        if floorStep != nil {
            for (index, device) in devices.enumerated() where device.schema.schemaVersion < MixedBuilds.v2.schemaVersion {
                await device.engine.setNetworkEnabled(true)
                // A build the floor passed writes nothing (a pull may still settle a dirty row
                // that a newer write superseded); one with nothing to send only pulls.
                let before = await server.rows(of: "habits")
                let waiting = try device.dirtyCount()
                do {
                    try await device.sync()
                    if waiting > 0 { problems.append("\(device.deviceID): a v1 build with writes waiting synced past the floor") }
                } catch let error as SyncError where error.code == .updateRequired {
                    // Refused: what it held waits for the upgrade.
                }
                // (Another device's pass may still be ending: only rows this device wrote count.)
                let wrote = await server.rows(of: "habits").filter { key, row in
                    row[ReservedColumn.deviceId] == .text(device.deviceID) && before[key] != row
                }
                if !wrote.isEmpty { problems.append("\(device.deviceID): a v1 build wrote \(wrote.count) rows past the floor") }
                devices[index] = try device.upgradedToV2()
            }
        }
        for device in devices { await device.engine.setNetworkEnabled(true) }
        for _ in 0..<2 {
            for device in devices { try await device.sync() }
        }
        if floorStep != nil {
            let versions = await server.deviceVersions
            for device in devices where versions["\(user.lowercasedString) \(device.deviceID)"] != MixedBuilds.v2.schemaVersion {
                problems.append(
                    "\(device.deviceID): its last hello said \(String(describing: versions["\(user.lowercasedString) \(device.deviceID)"]))"
                )
            }
        }
        for device in devices {
            let rejected = try device.store.rejectedMutations()
            if !rejected.isEmpty { problems.append("\(device.deviceID): \(rejected.count) writes rejected: \(rejected.map(\.message))") }
        }
        for device in devices { problems += try await MixedBuilds.differences(device, server) }
        let stored = await server.rows(of: "habits")
        for write in acknowledged { problems += check(write, against: stored) }
        return problems
    }

    /// One random local write on whichever build the device runs; returns the rows it changed.
    private func write(on device: TestDevice, _ random: inout SeededGenerator) async throws -> [ColumnValues] {
        let table = try #require(device.schema.table(named: "habits"))
        let before = try localRows(device, table)
        let isV2 = device.schema.tables.first?.columns.contains { $0.name == "emoji" } == true
        let (choice, pick, number, id) = (random.below(6), random.below(1_000), random.below(1_000), random.uuid())
        let columns = (random.below(2) == 0, random.below(2) == 0, random.below(2) == 0, random.below(2) == 0)
        try await device.store.write { tx in
            if isV2 {
                let habits = try tx.fetchAll(HopeSyncUpgradeSchemaV2.Habit.self, orderBy: "id", includingDeleted: true)
                guard choice > 0, !habits.isEmpty else {
                    try tx.save(HopeSyncUpgradeSchemaV2.Habit(id: id, name: "habit \(number)"))
                    return
                }
                var habit = habits[pick % habits.count]
                if choice == 1 {
                    try tx.delete(HopeSyncUpgradeSchemaV2.Habit.self, id: habit.id)
                    return
                }
                if choice == 2 { habit.deletedMs = nil }
                if columns.0 { habit.name = "name \(number)" }
                if columns.1 { habit.color = "#\(number)" }
                if columns.2 { habit.streak = Int64(number) }
                if columns.3 { habit.emoji = number % 5 == 0 ? nil : "e\(number)" }
                try tx.save(habit)
            } else {
                let habits = try tx.fetchAll(HopeSyncUpgradeSchemaV1.Habit.self, orderBy: "id", includingDeleted: true)
                guard choice > 0, !habits.isEmpty else {
                    try tx.save(HopeSyncUpgradeSchemaV1.Habit(id: id, name: "habit \(number)"))
                    return
                }
                var habit = habits[pick % habits.count]
                if choice == 1 {
                    try tx.delete(HopeSyncUpgradeSchemaV1.Habit.self, id: habit.id)
                    return
                }
                if choice == 2 { habit.deletedMs = nil }
                if columns.0 { habit.name = "name \(number)" }
                if columns.1 { habit.color = "#\(number)" }
                if columns.2 || columns.3 { habit.streak = Int64(number) }
                try tx.save(habit)
            }
        }
        return try localRows(device, table).filter { before[$0.key] != $0.value }.map(\.value)
    }

    /// For every column the write stamped: the server's stamp is at least as new, and when it is
    /// the same the server holds the written value (no two writes share a pair).
    private func check(_ write: ColumnValues, against stored: [String: ColumnValues]) -> [String] {
        let key = write["id"]?.text ?? ""
        guard let row = stored[key] else { return ["habits \(key): an acknowledged write never reached the server"] }
        guard let mine = write["column_stamps"]?.text.flatMap(ColumnStamps.init(json:)) else {
            return ["habits \(key): a write without stamps"]
        }
        let theirs = row["column_stamps"]?.text.flatMap(ColumnStamps.init(json:)) ?? ColumnStamps()
        // Only the columns the writer's build holds: it carries the stamps of newer columns unused.
        return mine.stamps.filter { write.columns.contains($0.key) }.compactMap { column, stamp in
            let server = theirs[column]
            if let server, server > stamp { return nil }
            if server == stamp, row[column] == write[column] { return nil }
            return
                "habits \(key).\(column): acknowledged \(String(describing: write[column])) at \(stamp), the server has \(String(describing: row[column])) at \(String(describing: server))"
        }
    }

    private func remove(_ device: TestDevice) {
        device.store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: device.path + suffix) }
    }
}
