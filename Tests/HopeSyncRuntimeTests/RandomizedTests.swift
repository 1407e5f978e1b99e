import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// Three devices of one user make random writes and deletes through offline periods, lost
/// answers, 5xx answers, out-of-order commits, restarts, a server that fails single rows with 500
/// (names starting "poison"), rows no client can read, and sign-ins that come and go. After the
/// faults stop, the refused writes are dismissed and every device syncs twice, all devices hold
/// the server's rows, and every write acknowledged locally is on the server or lost to a newer
/// write by the rule (rows ever refused excepted). The server keeps its own clock and refuses
/// claims more than a day past it; devices' clocks are near it, reset to 1970 or 2000, or days
/// ahead (``DeviceClockKind``). In half the runs the devices' engines run their schedules and
/// hear a poke after each write the server takes, through ``FakePokes``: pokes lost, late or
/// doubled, and connections that drop and come back, the faults drawn from the seed; in half of
/// those the devices announce their own pushes (the server then pokes nobody for them); the
/// engines stop before the final syncs, so the oracle is the same.
/// Runs: SYNC_RANDOM_RUNS (default 200); seed offset: SYNC_RANDOM_SEED.
@Suite struct RandomizedTests {
    @Test func devicesConvergeAndKeepEveryAcknowledgedWrite() async throws {
        try await SeededRuns.recordFailures(defaultRuns: 200) { seed in try await RandomRun(seed: seed).run() }
    }
}

/// Writes made while a push is in flight, at random, recorded as acknowledged once committed.
private final class InFlightWrites: Sendable {
    private struct State {
        var random: SeededGenerator
        var boxes: [String: StoreBox] = [:]
        var writes: [AcknowledgedWrite] = []
        var stopped = false
    }

    private let state: Locked<State>

    init(seed: UInt64) {
        state = Locked(State(random: SeededGenerator(seed: seed &* 104_729)))
    }

    func register(_ box: StoreBox, for device: TestDevice) {
        state.withLock { $0.boxes[device.deviceID] = box }
    }

    func rebind(_ device: TestDevice) {
        state.withLock { $0.boxes[device.deviceID]?.store = device.store }
    }

    func stop() {
        state.withLock { $0.stopped = true }
    }

    var acknowledged: [AcknowledgedWrite] { state.withLock { $0.writes } }

    func maybeWrite(on store: SyncStore?) {
        guard let store else { return }
        let pick: Int? = state.withLock { $0.stopped || $0.random.below(3) != 0 ? nil : $0.random.below(1_000) }
        guard let pick else { return }
        let saved = try? store.write { tx -> Activity? in
            let activities = try tx.fetchAll(Activity.self, orderBy: "id")
            guard !activities.isEmpty else { return nil }
            var activity = activities[pick % activities.count]
            activity.name = "in flight \(pick)"
            return try tx.save(activity)
        }
        guard let saved = saved ?? nil,
            let row = try? store.read({ try $0.rowValues(of: "activities") }).first(where: {
                $0["id"]?.text == saved.id.uuidString.lowercased()
            })
        else { return }
        state.withLock { $0.writes.append(AcknowledgedWrite(table: "activities", row: row)) }
    }
}

private struct AcknowledgedWrite {
    let table: String
    let row: ColumnValues
}

private struct RandomRun {
    let seed: UInt64
    let user: UUID
    /// Odd seeds pull sessions with the 50-row lookback, even ones with exact ordering.
    let ordering: PullOrdering
    let server: InMemoryServer
    let serverClock = ManualClock()
    let lww = [HopeFixture.activities, HopeFixture.sessions()]
    /// The pokes the devices hear, in the runs whose engines run (nil: only explicit syncs).
    let pokes: FakePokes?

    init(seed: UInt64) {
        self.seed = seed
        var generator = SeededGenerator(seed: seed)
        user = generator.uuid()
        ordering = seed % 2 == 1 ? .lookback(50) : .exact
        server = InMemoryServer(tables: HopeFixture.app(sessionOrdering: ordering).tables, clock: serverClock.read)
        pokes =
            (seed / 2) % 2 == 1
            ? FakePokes(seed: seed &* 31, faults: .drawn(&generator), announcesWrites: (seed / 4) % 2 == 1) : nil
    }

    func run() async throws -> [String] {
        var random = SeededGenerator(seed: seed &* 7_919)
        let inFlight = InFlightWrites(seed: seed)
        var devices: [TestDevice] = []
        for name in ["d1", "d2", "d3"] {
            // Some pushes see a write land while they are in flight.
            let kind = DeviceClockKind.pick(&random)
            let box = StoreBox()
            let hooked = HookedTransport(base: server, beforeUpsert: { inFlight.maybeWrite(on: box.store) })
            let transport: any SyncTransport = pokes.map { PokingTransport(hooked, pokes: $0) } ?? hooked
            let device = try TestDevice(
                name, user: user, transport: transport, schema: HopeFixture.app(sessionOrdering: ordering),
                clock: kind.clock(server: serverClock, &random), pokes: pokes
            )
            box.store = device.store
            inFlight.register(box, for: device)
            if kind.syncsBeforeWriting { try await device.sync() }
            if pokes != nil { await device.engine.start() }
            devices.append(device)
        }
        defer { for device in devices { remove(device) } }
        var acknowledged: [AcknowledgedWrite] = []
        await server.refuseRows(in: "activities", with: ServerError(status: 500, code: "XX000", message: "a trigger failed")) {
            $0["name"]?.text?.hasPrefix("poison") == true
        }

        for _ in 0..<40 {
            let index = random.below(devices.count)
            let device = devices[index]
            switch random.below(100) {
            case 0..<40: acknowledged += try await write(on: device, &random)
            case 40..<62: _ = try? await device.sync()
            case 62..<70: await device.engine.setNetworkEnabled(!(await device.engine.isNetworkEnabled))
            case 70..<76:
                await server.failNextRequests(
                    1 + random.below(2),
                    with: SyncError(.server, "down", serverError: ServerError(status: 503, code: "PGRST001", message: "down")))
            case 76..<82: await server.loseNextAnswers(1)
            case 82..<84: await server.setOnline(random.below(2) == 0)
            case 84..<85: await server.holdNextWrite() // commits out of order, at a later commit point
            case 85..<86: await server.commitHeldWrites()
            case 86..<90:
                // The app quits, mid-pass or not; a relaunched app starts its engine again.
                if pokes != nil { await device.engine.stop() }
                devices[index] = try device.restarted()
                inFlight.rebind(devices[index])
                if pokes != nil { await devices[index].engine.start() }
            case 90..<92: await server.insertUndecodableRow(in: random.below(2) == 0 ? "activities" : "sessions", owner: user)
            case 92..<93: await server.storeUnchecked(farFutureActivity(random.uuid(), days: 1 + random.below(60)), in: "activities")
            case 93..<94:
                device.signIn.credentials = device.signIn.credentials == nil ? Credentials(userID: user, accessToken: "token") : nil
            default:
                let elapsed = Int64(random.below(2_000))
                device.clock.advance(elapsed)
                serverClock.advance(elapsed)
            }
        }

        if pokes != nil {
            for device in devices { await device.engine.stop() }
        }
        inFlight.stop()
        acknowledged += inFlight.acknowledged
        await server.clearFaults()
        for device in devices {
            await device.engine.setNetworkEnabled(true)
            device.signIn.credentials = Credentials(userID: user, accessToken: "token")
        }
        // The user dismisses what the server refused (a row failing alone goes aside after a few
        // passes); the device shows the server's rows again.
        for _ in 0..<4 {
            for device in devices {
                _ = try? await device.sync()
                for entry in try device.store.rejectedMutations() { try device.store.dismissRejectedMutation(id: entry.id) }
            }
        }
        for _ in 0..<2 {
            for device in devices { try await device.sync() }
        }
        let refused = Set(acknowledged.filter { $0.row["name"]?.text?.hasPrefix("poison") == true }.compactMap { $0.row["id"]?.text })
        acknowledged.removeAll { refused.contains($0.row["id"]?.text ?? "") }

        var problems: [String] = []
        for device in devices { problems += try await differences(device, server) }
        for write in acknowledged {
            problems += await check(write)
        }
        if ProcessInfo.processInfo.environment["SYNC_RANDOM_VERBOSE"] != nil {
            print(
                "seed \(seed): \(acknowledged.count) acknowledged writes, \(await server.rows(of: "sessions").count) sessions, \(await server.rows(of: "activities").count) activities, \(await server.requestCount) requests, \(pokes?.sentCount ?? 0) pokes heard"
            )
        }
        return problems
    }

    /// An activity stamped days past the server's clock, as a row from before the server refused
    /// such claims would be: no device's edit can win over it, so each one that tries must end
    /// with the server's row.
    private func farFutureActivity(_ id: UUID, days: Int) -> ColumnValues {
        let stamp = WriteStamp(ms: serverClock.now + Int64(days) * 86_400_000, deviceID: "from-the-future")
        let table = HopeFixture.activities
        let stamps = ColumnStamps(stamping: RowMerge(table).stamped, with: stamp)
        let values: [String: SyncValue] = [
            "id": .text(id.uuidString.lowercased()), "user_id": .text(user.uuidString.lowercased()), "name": .text("from the future"),
            "color": .text("#000000"), "archived": .bool(false), "sort_order": .double(0), "metadata": .null,
            "updated_ms": .int(stamp.ms), "deleted_ms": .null, "device_id": .text(stamp.deviceID), "column_stamps": .text(stamps.json),
        ]
        return ColumnValues(columns: Array(values.keys), values: Array(values.values))
    }

    /// One random local write; returns the rows it changed (closes by the open-row rule too).
    private func write(on device: TestDevice, _ random: inout SeededGenerator) async throws -> [AcknowledgedWrite] {
        let before = try lww.map { try localRows(device, $0) }
        let sessions = try await device.store.read { try $0.fetchAll(Session.self) }
        let activities = try await device.store.read { try $0.fetchAll(Activity.self) }
        let now = device.clock.now
        let choice = random.below(6)
        let (pick, number, offset, open) = (random.below(1_000), random.below(1_000), Int64(random.below(10_000)), random.below(3) == 0)
        let (id, otherID) = (random.uuid(), random.uuid())
        try await device.store.write { tx in
            switch choice {
            case 0 where !activities.isEmpty:
                var activity = activities[pick % activities.count]
                activity.name = number % 8 == 0 ? "poison \(number)" : "renamed \(number)"
                try tx.save(activity)
            case 1 where !sessions.isEmpty:
                var session = sessions[pick % sessions.count]
                if session.endedMs == nil { session.endedMs = session.startedMs + 1 + Int64(number) }
                session.note = "note \(number)"
                try tx.save(session)
            case 2 where !sessions.isEmpty:
                try tx.delete(Session.self, id: sessions[pick % sessions.count].id)
            case 3 where !activities.isEmpty:
                try tx.delete(Activity.self, id: activities[pick % activities.count].id)
            case 4:
                try tx.save(Activity(id: id, name: "activity \(number)"))
            default:
                let start = now - offset
                try tx.save(Session(id: id, activityId: otherID, startedMs: start, endedMs: open ? nil : start + 500))
            }
        }
        var changed: [AcknowledgedWrite] = []
        for (offset, table) in lww.enumerated() {
            for (key, row) in try localRows(device, table) where before[offset][key] != row {
                changed.append(AcknowledgedWrite(table: table.name, row: row))
            }
        }
        return changed
    }

    /// Column by column: for every column the write stamped, the server holds a stamp at least
    /// as new, and the written value itself when the stamps are equal (no two different writes
    /// share a pair). Whole-row tables: the server holds the write or a newer pair.
    private func check(_ write: AcknowledgedWrite) async -> [String] {
        let key = write.row["id"]?.text ?? ""
        guard let stored = await server.rows(of: write.table)[key] else {
            return ["\(write.table) \(key): an acknowledged write never reached the server"]
        }
        guard case .text(let mineText)? = write.row["column_stamps"], let mine = ColumnStamps(json: mineText) else {
            let mine = (write.row["updated_ms"]?.int ?? 0, write.row["device_id"]?.text ?? "")
            let theirs = (stored["updated_ms"]?.int ?? 0, stored["device_id"]?.text ?? "")
            if theirs > mine { return [] }
            if theirs == mine, withoutSequence(stored) == withoutSequence(write.row) { return [] }
            return ["\(write.table) \(key): acknowledged \(write.row) but the server has \(stored)"]
        }
        let theirs = stored["column_stamps"]?.text.flatMap(ColumnStamps.init(json:)) ?? ColumnStamps()
        var problems: [String] = []
        for (column, stamp) in mine.stamps {
            let server = theirs[column]
            if let server, server > stamp { continue }
            if server == stamp, stored[column] == write.row[column] { continue }
            problems.append(
                "\(write.table) \(key).\(column): acknowledged \(String(describing: write.row[column])) at \(stamp), the server has \(String(describing: stored[column])) at \(String(describing: server))"
            )
        }
        return problems
    }

    private func withoutSequence(_ row: ColumnValues) -> [SyncValue] {
        zip(row.columns, row.values).filter { $0.0 != "server_seq" }.map(\.1)
    }

    private func remove(_ device: TestDevice) {
        device.store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: device.path + suffix) }
    }
}
