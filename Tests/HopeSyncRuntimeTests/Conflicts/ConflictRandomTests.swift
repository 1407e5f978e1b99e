import Foundation
import HopeSchema
import HopeSync
import HopeSyncTestSupport
import Testing

/// Three devices of one user edit and delete the same version-table rows at random, through lost
/// answers, 5xx answers, offline passes and restarts, with the default resolution. Once the faults
/// stop and every device syncs a few times, every device holds exactly the server's rows and no
/// write waits anywhere. The one exception: a write whose send got no answer and whose row another
/// device changed before it was replayed waits on the conflicted list (decision 0050: it may have
/// landed first, and is not sent over a change that may be later); there are at most as many of
/// those as answers were lost, and once the user dismisses them every device converges. The server keeps its own clock; devices' clocks are near it, reset, or
/// days ahead (``DeviceClockKind``). Runs: SYNC_RANDOM_RUNS (default 100); seed offset:
/// SYNC_RANDOM_SEED.
@Suite struct ConflictRandomTests {
    @Test func devicesEditingTheSameRowsConverge() async throws {
        try await SeededRuns.recordFailures(defaultRuns: 100) { seed in try await Self.run(seed: seed) }
    }

    private static func run(seed: UInt64) async throws -> [String] {
        var random = SeededGenerator(seed: seed)
        let serverClock = ManualClock()
        let scene = ConflictScene(serverClock: serverClock)
        var devices = try (0..<3).map { index in
            try scene.device("d\(index)", clock: DeviceClockKind.pick(&random).clock(server: serverClock, &random))
        }
        let ids = (0..<3).map { _ in UUID() }
        try await devices[0].store.write { writer in for id in ids { try writer.save(TaskItem(id: id, title: "start")) } }
        for device in devices + [devices[0]] { try await device.sync() }

        var lostAnswers = 0
        for step in 0..<30 {
            let index = random.below(devices.count)
            let device = devices[index]
            let id = ids[random.below(ids.count)]
            switch random.below(10) {
            case 0...3:
                let title = "s\(step)"
                let tick = random.below(2) == 0
                try await device.store.write { writer in
                    guard var task = try writer.fetchOne(TaskItem.self, id: id), task.deletedMs == nil else { return }
                    task.title = title
                    if tick { task.done.toggle() }
                    try writer.save(task)
                }
            case 4:
                try await device.store.write { try $0.delete(TaskItem.self, id: id) }
            case 5, 6:
                _ = try? await device.sync()
            case 7:
                await scene.server.loseNextAnswers(1)
                lostAnswers += 1
                _ = try? await device.sync()
            case 8:
                let failure = ServerError(status: 503, code: "PGRST001", message: "unavailable")
                await scene.server.failNextRequests(1, with: SyncError(.server, "unavailable", serverError: failure))
                _ = try? await device.sync()
            default:
                devices[index] = try device.restarted()
            }
        }

        await scene.server.clearFaults()
        for _ in 0..<3 { for device in devices { try await device.sync() } }
        var problems: [String] = []
        var mayHaveLanded = 0
        for device in devices {
            let conflicted = try await device.store.read { try $0.conflictedMutations() }
            for entry in conflicted where entry.message.hasPrefix("An earlier send of this write got no answer") {
                mayHaveLanded += 1
                try device.store.dismissConflictedMutation(id: entry.id)
            }
        }
        if mayHaveLanded > lostAnswers {
            problems.append("\(mayHaveLanded) writes parked as perhaps landed, with \(lostAnswers) answers lost")
        }
        for device in devices { try await device.sync() }
        for device in devices {
            problems += try await differences(device, scene.server)
            let status = await device.currentStatus()
            if status?.pendingCount != 0 || status?.conflictedCount != 0 || status?.rejectedCount != 0 || status?.dirtyCount != 0 {
                problems.append("\(device.deviceID) still waits: \(String(describing: status))")
            }
        }
        return problems
    }
}
