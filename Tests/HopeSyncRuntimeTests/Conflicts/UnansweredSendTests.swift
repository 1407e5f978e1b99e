import Foundation
import HopeSchema
import HopeSync
import HopeSyncTestSupport
import Testing

/// Decision 0050: a guarded write whose send got no answer may have landed, so once its row has
/// moved it is parked instead of being sent again (or kept by the resolver) over a change that
/// may be later. A refusal that carries PostgREST's error body proves the write did not land.
@Suite struct UnansweredSendTests {
    let scene = ConflictScene()
    let asked = ConflictSeen()

    /// A task synced at T1, edited on phone A, whose push lands at T2 with its answer lost.
    func lostAnswer(restarting: Bool = false) async throws -> (TestDevice, TaskItem) {
        var device = try scene.device(
            "a",
            resolver: { [asked] in
                asked.record($0)
                return .keepLocal
            })
        let task = try await scene.syncedTask(on: device)
        try await device.edit(task.id) { $0.title = "Buy oat milk" }
        await scene.server.setNextVersions([Stamp.t2])
        await scene.server.loseNextAnswers(1)
        await #expect { try await device.sync() } throws: { ($0 as? SyncError)?.isNetworkFailure == true }
        if restarting { device = try device.restarted() }
        return (device, task)
    }

    @Test(arguments: [false, true])
    func aWriteThatMayHaveLandedIsNotSentOverALaterChange(restarting: Bool) async throws {
        let (device, task) = try await lostAnswer(restarting: restarting)
        // Phone B renames the task after A's write landed.
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Buy almond milk")]), version: Stamp.t3)
        let report = try await device.sync()
        #expect(asked.all.isEmpty)
        #expect(report.synced == 0 && report.conflicted.count == 1)
        #expect(await scene.serverTask(task.id)?["title"] == .text("Buy almond milk"))
        let entry = try #require(try device.store.conflictedMutations().first)
        #expect(entry.body?["title"] == .text("Buy oat milk") && entry.server?["title"] == .text("Buy almond milk"))
        #expect(entry.message.hasPrefix("An earlier send of this write got no answer"))
        #expect(try device.task(task.id)?.title == "Buy almond milk")
        #expect(try device.pending().isEmpty)
    }

    @Test func aWriteThatMayHaveLandedAndMetNoOtherChangeSettlesQuietly() async throws {
        let (device, task) = try await lostAnswer()
        let report = try await device.sync()
        #expect(report.synced == 1 && report.alreadyOnServer == 1 && report.conflicted.isEmpty)
        #expect(try device.task(task.id)?.title == "Buy oat milk")
    }

    @Test func aRefusalWithPostgRESTsErrorBodyLeavesTheWriteToTheResolver() async throws {
        let device = try scene.device(
            "a",
            resolver: { [asked] in
                asked.record($0)
                return .keepLocal
            })
        let task = try await scene.syncedTask(on: device)
        try await device.edit(task.id) { $0.title = "Buy oat milk" }
        let unavailable = ServerError(status: 503, code: "PGRST001", message: "Database client error")
        await scene.server.failNextRequests(1, with: SyncError(.server, "unavailable", serverError: unavailable))
        _ = try? await device.sync()
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Buy almond milk")]), version: Stamp.t3)
        let report = try await device.sync()
        #expect(asked.all.count == 1 && report.conflicted.isEmpty && report.synced == 1)
        #expect(await scene.serverTask(task.id)?["title"] == .text("Buy oat milk"))
    }
}
