import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import Testing

/// The conflicted and rejected lists: kept across restarts, streamed, and bounded.
@Suite struct ListTests {
    let scene = ConflictScene()

    /// `count` tasks saved, synced, then edited with `title(i)` while a policy denies their updates.
    func rejectedEdits(_ device: TestDevice, count: Int, title: @escaping @Sendable (Int) -> String) async throws -> [TaskItem] {
        let tasks = (0..<count).map { TaskItem(title: "Task \($0)") }
        try await device.store.write { writer in for task in tasks { try writer.save(task) } }
        try await device.sync()
        for (index, task) in tasks.enumerated() {
            try await device.edit(task.id) { $0.title = title(index) }
            await scene.server.denyUpdates(in: "tasks", id: task.id)
        }
        try await device.sync()
        return tasks
    }

    @Test func listsSurviveARestart() async throws {
        let path = TestDevice.temporaryPath("lists")
        let device = try scene.device("a", resolver: holdTitleConflicts, path: path)
        let held = try await scene.syncedTask(on: device)
        try await device.edit(held.id) { $0.title = "Mine" }
        await scene.changeElsewhere(held.id, ColumnValues(["title": .text("Theirs")]), version: Stamp.t2)
        _ = try await rejectedEdits(device, count: 1) { _ in "Denied" }
        let conflicted = try device.store.conflictedMutations()
        let rejected = try device.store.rejectedMutations()
        #expect(conflicted.count == 1 && rejected.count == 1)

        let restarted = try device.restarted()
        #expect(try restarted.store.conflictedMutations() == conflicted)
        #expect(try restarted.store.rejectedMutations() == rejected)
        var stream = restarted.store.observeConflictedMutations().makeAsyncIterator()
        #expect(try await stream.next() == conflicted)
        try restarted.store.dismissConflictedMutation(id: conflicted[0].id)
        #expect(try await stream.next() == [])
        try restarted.store.dismissRejectedMutation(id: rejected[0].id)
        #expect(try restarted.store.rejectedMutations().isEmpty)
    }

    @Test func keepMineAsksTheRunningEngineForAPass() async throws {
        var configuration = TestDevice.configuration
        configuration.resolver = holdTitleConflicts
        // The debounce after a local write passes at once; every other wait is an hour.
        let debounce = configuration.debounce
        configuration.sleep = { duration in
            if duration != debounce { try await Task.sleep(for: .seconds(3_600)) }
        }
        let device = try TestDevice("a", user: scene.user, transport: scene.server, configuration: configuration)
        let task = try await scene.syncedTask(on: device)
        try await device.edit(task.id) { $0.title = "Mine" }
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Theirs")]), version: Stamp.t2)
        let entry = try #require(try await device.sync().conflicted.first)
        // The engine's launch pass ends, then it waits an hour for the next poll.
        let before = await device.engine.status.lastSyncedAt
        var launch = device.engine.statusUpdates().makeAsyncIterator()
        await device.engine.start()
        defer { Task { await device.engine.stop() } }
        while let status = await launch.next(), !(status.phase == .idle && status.lastSyncedAt != before) {}
        #expect(await scene.serverTask(task.id)?["title"] == .text("Theirs"))
        // Keep mine: no syncNow; the write asks the engine for the pass that sends it.
        try device.store.resolveConflictedMutation(id: entry.id, resolution: .keepLocal)
        var statuses = device.engine.statusUpdates().makeAsyncIterator()
        while let status = await statuses.next(), !(status.phase == .idle && status.pendingCount == 0) {}
        #expect(await scene.serverTask(task.id)?["title"] == .text("Mine"))
    }

    @Test func theNewestHundredEntriesAreKept() async throws {
        let device = try scene.device("a")
        let tasks = try await rejectedEdits(device, count: 105) { "Denied \($0)" }
        let kept = try device.store.rejectedMutations()
        #expect(kept.count == 100)
        #expect(kept.map(\.rowID) == tasks.suffix(100).map(\.id))
        #expect(await device.currentStatus()?.rejectedCount == 100)
    }

    @Test func theListStaysWithinItsCharactersAndDropsLongBodies() async throws {
        let device = try scene.device("a")
        // 15 K-character bodies: about 34 of them fit in 512 K characters.
        let long = String(repeating: "x", count: 15 * 1_024)
        _ = try await rejectedEdits(device, count: 40) { "\($0) \(long)" }
        let kept = try device.store.rejectedMutations()
        #expect(kept.count < 40 && kept.count >= 30)
        #expect(kept.last?.body?["title"] == .text("39 \(long)"))
        let characters = kept.reduce(0) { $0 + ($1.body?["title"]?.text?.count ?? 0) }
        #expect(characters <= 512 * 1_024)

        // A body over 16 K characters is not kept, and the entry cannot be retried.
        let tooLong = try await rejectedEdits(device, count: 1) { _ in String(repeating: "y", count: 17 * 1_024) }
        let entry = try #require(try device.store.rejectedMutations().last)
        #expect(entry.rowID == tooLong[0].id && entry.body == nil && !entry.isRetryable)
        #expect(throws: SyncError.self) { try device.store.retryRejectedMutation(id: entry.id) }
    }

    @Test func theServersTextsAreKeptToFourThousandCharacters() async throws {
        let device = try scene.device("a")
        let task = try await scene.syncedTask(on: device)
        try await device.edit(task.id) { $0.title = "Buy oat milk" }
        let long = String(repeating: "z", count: 5_000)
        let refusal = ServerError(status: 400, code: "23514", message: long, details: long, hint: long)
        await scene.server.failNextRequests(1, with: SyncError(.server, "refused", serverError: refusal))
        let report = try await device.sync()
        #expect(report.rejected == 1)
        let entry = try #require(try device.store.rejectedMutations().first)
        let kept = try #require(entry.serverError)
        #expect(kept.status == 400 && kept.code == "23514")
        #expect(kept.message.count == 4_096 && kept.details?.count == 4_096 && kept.hint?.count == 4_096)
        #expect(entry.isRetryable && entry.body?["title"] == .text("Buy oat milk"))
    }
}
