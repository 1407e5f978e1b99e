import Foundation
import HopeSyncLifecycleSchemaV1
import HopeSyncLifecycleSchemaV2
import HopeSyncLifecycleSchemaV3
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@_spi(Transport) @testable import HopeSync

/// The column lifecycle while devices sync (issue 34, decisions 0051 and 0052), on
/// Tests/Fixtures/Lifecycle's three builds: four devices start on v1; mid-run the server takes
/// v2's migration (renames, a retype, a deprecated column and table), devices update one by one
/// (some to v3 later, some straight from v1), in two thirds of the runs `oldest_writer` passes
/// v1, and in half of those the server then takes v3's (the renames finished, the old names
/// retired, streak removed) while v1 builds still hold writes. Every build edits random columns
/// of habits (column merge) and notes (a version table), v1 also tags, through offline
/// periods, lost answers, 5xx answers, restarts and, in half the runs, its schedule hearing
/// pokes. Oracle: nothing on any rejected list but notes not taken for their version; a v1
/// build past the floor writes nothing and keeps pulling; each column of habits holds the
/// newest write of it through either of its names (the stamps of the pair); every device holds
/// the server's rows in its own shape (a parked note's row the version it saw); and each
/// launch's clock resumes past every stamp the device made before (an update drops columns
/// and tables that held them).
/// Runs: SYNC_RANDOM_RUNS (default 100); seed offset: SYNC_RANDOM_SEED; SYNC_RANDOM_VERBOSE
/// prints each step.
@Suite struct LifecycleFleetRandomTests {
    @Test func everyBuildsWritesSurviveEveryStep() async throws {
        try await SeededRuns.recordFailures(defaultRuns: 100) { seed in try await LifecycleRun(seed: seed).run() }
    }
}

private struct LifecycleRun {
    let seed: UInt64
    let user = UUID()
    let serverClock = ManualClock()
    let pokes: FakePokes?
    let engineTime = ManualClock()
    let verbose = ProcessInfo.processInfo.environment["SYNC_RANDOM_VERBOSE"] != nil

    init(seed: UInt64) {
        self.seed = seed
        var random = SeededGenerator(seed: seed &* 5_081)
        pokes =
            (seed / 2) % 2 == 1 ? FakePokes(seed: seed &* 41, faults: .drawn(&random), announcesWrites: (seed / 4) % 2 == 1) : nil
    }

    func run() async throws -> [String] {
        let server = await LifecycleBuilds.server(clock: serverClock.read)
        await server.setOldestWriter(nil)
        var random = SeededGenerator(seed: seed &* 9_173)
        let function = try #require(LifecycleBuilds.pullFunction)
        var serverStep = 1
        let expandStep = 3 + random.below(20)
        let floorStep = random.below(3) == 0 ? nil : expandStep + 1 + random.below(20)
        let contractStep = floorStep.flatMap { random.below(2) == 0 ? $0 + random.below(15) : nil }
        var configuration = TestDevice.configuration
        configuration.now = { [engineTime] in Date(timeIntervalSince1970: TimeInterval(engineTime.now) / 1_000) }
        if random.below(3) == 0 { configuration.pageSize = 2 + random.below(4) }
        var devices: [TestDevice] = []
        for name in ["d1", "d2", "d3", "d4"] {
            let kind = DeviceClockKind.pick(&random)
            let transport: any SyncTransport = pokes.map { PokingTransport(server, pokes: $0) } ?? server
            let schema = LifecycleBuilds.v1.pulling(through: random.below(2) == 0 ? function : nil)
            let device = try TestDevice(
                name, user: user, transport: transport, schema: schema, clock: kind.clock(server: serverClock, &random),
                configuration: configuration, pokes: pokes)
            if kind.syncsBeforeWriting { try await device.sync() }
            if pokes != nil { await device.engine.start() }
            devices.append(device)
        }
        defer { for device in devices { remove(device) } }
        var written: [ColumnValues] = []
        var problems: [String] = []
        for step in 0..<60 {
            if step == expandStep {
                await server.migrate(to: LifecycleBuilds.serverV2)
                serverStep = 2
            }
            if step == floorStep { await server.setOldestWriter(LifecycleBuilds.v2.schemaVersion) }
            if step == contractStep {
                await server.migrate(to: LifecycleBuilds.serverV3)
                serverStep = 3
            }
            let index = random.below(devices.count)
            let device = devices[index]
            let op = random.below(100)
            if verbose {
                print("\(seed) step \(step) \(device.deviceID) v\(LifecycleBuilds.build(device.schema)) op \(op) server v\(serverStep)")
            }
            switch op {
            case 0..<45: written += try await write(on: device, &random)
            case 45..<66: _ = try? await device.sync()
            case 66..<72: await device.engine.setNetworkEnabled(!(await device.engine.isNetworkEnabled))
            case 72..<76:
                await server.failNextRequests(
                    1, with: SyncError(.server, "down", serverError: ServerError(status: 503, code: "PGRST001", message: "down")))
            case 76..<81: await server.loseNextAnswers(1)
            case 81..<86: devices[index] = try await relaunch(device, as: LifecycleBuilds.build(device.schema), server, &problems)
            case 86..<94 where LifecycleBuilds.build(device.schema) < serverStep:
                // The app updates to a build the server serves: the next, or the newest.
                let build = LifecycleBuilds.build(device.schema)
                devices[index] = try await relaunch(device, as: random.below(2) == 0 ? build + 1 : serverStep, server, &problems)
            default:
                let elapsed = Int64(random.below(5_000))
                device.clock.advance(elapsed)
                serverClock.advance(elapsed)
                engineTime.advance(elapsed)
            }
        }
        if pokes != nil {
            for device in devices { await device.engine.stopAndSettle() }
        }
        await server.clearFaults()
        if floorStep != nil {
            for (index, device) in devices.enumerated() where LifecycleBuilds.build(device.schema) == 1 {
                problems += try await checkHeld(device, server)
                // Its schedule stays off: the next device's check sees no pass of this one's.
                devices[index] = try await relaunch(device, as: serverStep, starting: false, server, &problems)
            }
        }
        for device in devices { await device.engine.setNetworkEnabled(true) }
        for _ in 0..<2 {
            for device in devices { try await device.sync() }
        }
        for device in devices {
            // Two devices' saves of one note (a version table) end by the version's rules
            // (PROTOCOL.md): the later one meets the move and is parked on the conflicted list,
            // and a save pushed again after its answer was lost names a version the server has
            // passed and is parked on the rejected list, not taken. Either row shows the
            // version the device saw. Any other refusal, and any other difference, is the
            // lifecycle's.
            let rejected = try device.store.rejectedMutations()
            let notTaken = rejected.filter { $0.table == "notes" && $0.serverError == nil }.map { ($0.table, $0.rowID) }
            let conflicted = try device.store.conflictedMutations().map { ($0.table, $0.rowID) }
            let refused = rejected.filter { $0.table != "notes" || $0.serverError != nil }
            if !refused.isEmpty {
                problems.append("\(device.deviceID): \(refused.count) writes rejected: \(refused.map { "\($0.table) \($0.message)" })")
            }
            let parked = Set((notTaken + conflicted).map { "\($0) \($1.lowercasedString)" })
            problems += try await MixedBuilds.differences(device, server, showingVersionSeen: parked)
        }
        let stored = await server.rows(of: "habits")
        for write in written { problems += check(write, against: stored) }
        if !problems.isEmpty {
            problems.append(
                "steps: expand \(expandStep), floor \(String(describing: floorStep)), contract \(String(describing: contractStep))")
        }
        return problems
    }

    /// The app launches again as `build` (the same build: a restart), on the same file and
    /// pulling as it did; its schedule runs again in the runs that have them, if `starting`.
    /// Its clock resumes past every stamp of it the server holds: two writes of one device never
    /// share a stamp (no merge could order them).
    private func relaunch(
        _ device: TestDevice, as build: Int, starting: Bool = true, _ server: InMemoryServer, _ problems: inout [String]
    ) async throws -> TestDevice {
        if pokes != nil { await device.engine.stop() }
        let relaunched = try device.reopened(with: LifecycleBuilds.schema(build).pulling(through: device.schema.pullFunction))
        let resumed = try await relaunched.store.onWriter { $0.state.clock.last }
        let made = await newestStamp(of: device.deviceID, on: server)
        if verbose { print("\(seed) \(device.deviceID) relaunched as v\(build): clock \(resumed), its newest on the server \(made)") }
        if resumed < made {
            problems.append("\(device.deviceID): the server holds its stamp \(made), and its clock resumed at \(resumed) as v\(build)")
        }
        if pokes != nil, starting { await relaunched.engine.start() }
        return relaunched
    }

    /// The newest stamp the server holds of `deviceID`'s writes: a row's pair, or one column's.
    private func newestStamp(of deviceID: String, on server: InMemoryServer) async -> Int64 {
        var newest: Int64 = 0
        for table in ["habits", "notes", "tags"] {
            for row in await server.rows(of: table).values {
                if row[ReservedColumn.deviceId] == .text(deviceID), case .int(let ms)? = row[ReservedColumn.updatedMs] {
                    newest = max(newest, ms)
                }
                guard case .text(let json)? = row[ReservedColumn.columnStamps], let stamps = ColumnStamps(json: json) else { continue }
                for stamp in stamps.stamps.values where stamp.deviceID == deviceID { newest = max(newest, stamp.ms) }
            }
        }
        return newest
    }

    /// A v1 build the floor passed: its pass writes nothing and says `.updateRequired` if it
    /// holds writes, and its pull goes on (the old names served, read only after v3).
    private func checkHeld(_ device: TestDevice, _ server: InMemoryServer) async throws -> [String] {
        await device.engine.setNetworkEnabled(true)
        var problems: [String] = []
        let before = await rowsWritten(by: device, server)
        let waiting = try device.dirtyCount()
        do {
            try await device.sync()
            if waiting > 0 { problems.append("\(device.deviceID): a v1 build with writes waiting synced past the floor") }
        } catch let error as SyncError where error.code == .updateRequired {
            // Refused: what it held waits for the update.
        }
        let after = await rowsWritten(by: device, server)
        for (key, row) in after where before[key] != row {
            problems.append("\(device.deviceID): a v1 build wrote past the floor: \(key) \(String(describing: before[key])) -> \(row)")
        }
        return problems
    }

    private func rowsWritten(by device: TestDevice, _ server: InMemoryServer) async -> [String: ColumnValues] {
        var rows: [String: ColumnValues] = [:]
        for table in ["habits", "notes", "tags"] {
            for (key, row) in await server.rows(of: table) where row[ReservedColumn.deviceId] == .text(device.deviceID) {
                rows["\(table) \(key)"] = row
            }
        }
        return rows
    }

    /// One random local write on whichever build the device runs; returns the habits rows it
    /// changed (the column-merge table, whose every column the oracle follows): those that
    /// changed and carry this device's stamp as their pair. A pull may land while the write
    /// runs (the schedule hears pokes), and a row it brought is no write of this device's (an
    /// old build holds a lossy copy of a newer build's value, under that build's stamp).
    private func write(on device: TestDevice, _ random: inout SeededGenerator) async throws -> [ColumnValues] {
        let habits = try #require(device.schema.table(named: "habits"))
        let before = try localRows(device, habits)
        let edit = LifecycleEdit(&random)
        let note = random.below(10) < 3
        switch (LifecycleBuilds.build(device.schema), note) {
        case (1, true): try await device.store.write { try edit.noteV1($0) }
        case (1, false) where random.below(4) == 0: try await device.store.write { try edit.tag($0) }
        case (1, false): try await device.store.write { try edit.habitV1($0) }
        case (2, true): try await device.store.write { try edit.noteV2($0) }
        case (2, false): try await device.store.write { try edit.habitV2($0) }
        case (_, true): try await device.store.write { try edit.noteV3($0) }
        default: try await device.store.write { try edit.habitV3($0) }
        }
        return try localRows(device, habits).filter {
            before[$0.key] != $0.value && $0.value[ReservedColumn.deviceId] == .text(device.deviceID)
        }.map(\.value)
    }

    /// For every column of habits the write stamped (but streak, which an update drops by
    /// design): the server's stamp is at least as new, and when it is the same the server
    /// holds the written value, under the name the write used and (for the columns it set),
    /// converted, under the other name of its pair (the server keeps both: equal while renamed, a generated copy once
    /// retired).
    private func check(_ write: ColumnValues, against stored: [String: ColumnValues]) -> [String] {
        let key = write["id"]?.text ?? ""
        guard let row = stored[key] else { return ["habits \(key): a write never reached the server"] }
        guard let mine = write["column_stamps"]?.text.flatMap(ColumnStamps.init(json:)) else {
            return ["habits \(key): a write without stamps"]
        }
        let theirs = row["column_stamps"]?.text.flatMap(ColumnStamps.init(json:)) ?? ColumnStamps()
        var expected: [(column: String, value: SyncValue, stamp: WriteStamp)] = []
        for (column, stamp) in mine.stamps where write.columns.contains(column) && column != "streak" {
            let value = write[column] ?? .null
            expected.append((column, value, stamp))
            // What this write set (its own pair) the server holds under both names; a value it
            // only carried from a pull may be a lossy copy (the retype's `back`).
            guard stamp == WriteStamp(pairOf: Dictionary(uniqueKeysWithValues: zip(write.columns, write.values))) else { continue }
            for pair in [LifecycleBuilds.title, LifecycleBuilds.goal] {
                if column == pair.was { expected.append((pair.name, pair.toNew(value), stamp)) }
                if column == pair.name { expected.append((pair.was, pair.toOld(value), stamp)) }
            }
        }
        return expected.filter { row.columns.contains($0.column) }.compactMap { column, value, stamp in
            let server = theirs[column]
            if let server, server > stamp { return nil }
            if server == stamp, row[column] == value { return nil }
            return
                "habits \(key).\(column): written \(value) at \(stamp), the server has \(String(describing: row[column])) at \(String(describing: server))"
        }
    }

    private func remove(_ device: TestDevice) {
        device.store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: device.path + suffix) }
    }
}
