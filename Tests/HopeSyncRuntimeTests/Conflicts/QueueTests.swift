import Foundation
import HopeSchema
import Testing

@_spi(Transport) @testable import HopeSync

/// The write queue: bases forwarded along one user's edits, never moved by a pulled row; a
/// write the server fails with 5xx holds the writes behind it; inserts stay last writer wins.
@Suite struct QueueTests {
    let scene = ConflictScene()

    @Test func editsQueuedOneAfterAnotherReplayWithoutAConflict() async throws {
        let asked = ConflictSeen()
        let device = try scene.device(
            "a",
            resolver: {
                asked.record($0)
                return .hold
            })
        let task = try await scene.syncedTask(on: device)
        try await device.edit(task.id) { $0.title = "Buy oat milk" }
        try await device.edit(task.id) {
            $0.title = "Buy oat milk, 2 l"
            $0.done = true
        }
        #expect(try device.pending().map(\.baseVersion) == [Stamp.t1, Stamp.t1])
        await scene.server.setNextVersions([Stamp.t2, Stamp.t3])
        await scene.server.clearRequestLog()
        let report = try await device.sync()
        #expect(report.synced == 2 && report.conflicted.isEmpty && asked.all.isEmpty)
        #expect(await scene.guardedUpdates().map(\.baseVersion) == [Stamp.t1, Stamp.t2])
        #expect(await scene.fetches().isEmpty)
        let shown = try #require(try device.task(task.id))
        #expect(shown.title == "Buy oat milk, 2 l" && shown.done && shown.updatedAt == Stamp.t3)
    }

    @Test func aPulledRowDoesNotMoveABase() async throws {
        let asked = ConflictSeen()
        let device = try scene.device(
            "a",
            resolver: {
                asked.record($0)
                return .keepLocal
            })
        let task = try await scene.syncedTask(on: device)
        try await device.edit(task.id) { $0.title = "Buy oat milk" }
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Buy almond milk"), "notes": .text("2 l")]), version: Stamp.t2)
        // A pull alone (no replay): the row's other columns arrive, the queued title stays shown.
        let page = try await scene.server.pull(TaskItem.table, after: 0, limit: 100, as: Credentials(userID: scene.user, accessToken: ""))
        _ = try device.store.apply(page, to: TaskItem.table)
        let shown = try #require(try device.task(task.id))
        #expect(shown.title == "Buy oat milk" && shown.notes == "2 l" && shown.updatedAt == Stamp.t2)
        #expect(try device.pending().first?.baseVersion == Stamp.t1)
        // The replay meets the change made elsewhere as a conflict.
        let report = try await device.sync()
        let conflict = try #require(asked.all.first)
        #expect(conflict.changedOnServer == ["title"] && conflict.conflictingColumns == ["title"])
        #expect(conflict.base["updated_at"] == .text(Stamp.t1))
        #expect(report.conflictsResolved == 1)
    }

    @Test func aNewRowIsUpsertedAndGuardedOnceItsVersionCameBack() async throws {
        let device = try scene.device("a")
        let task = TaskItem(title: "Buy milk")
        try await device.store.write { try $0.save(task) }
        try await device.edit(task.id) { $0.title = "Buy oat milk" }
        #expect(try device.pending().isEmpty && device.dirtyCount() == 1)
        await scene.server.setNextVersions([Stamp.t1])
        let first = try await device.sync()
        #expect(first.pushed == 1 && first.synced == 0)
        #expect(try device.task(task.id)?.updatedAt == Stamp.t1)
        try await device.edit(task.id) { $0.done = true }
        #expect(try device.pending().map(\.baseVersion) == [Stamp.t1] && device.dirtyCount() == 0)
        #expect(try await device.sync().synced == 1)
    }

    @Test func aWriteRefusedWith5xxHoldsTheWritesBehindItUntilDiscarded() async throws {
        let device = try scene.device("a")
        let first = try await scene.syncedTask(on: device)
        let second = try await scene.syncedTask(on: device, TaskItem(title: "Call mum"), version: Stamp.t2)
        try await device.edit(first.id) { $0.title = "Buy oat milk" }
        try await device.edit(second.id) { $0.title = "Call mum back" }
        let failure = ServerError(status: 503, code: "PGRST001", message: "Database client error. Retrying the connection.")
        for attempt in 1...2 {
            await scene.server.clearRequestLog()
            await scene.server.failNextRequests(1, with: SyncError(.server, "refused", serverError: failure))
            let error = await #expect(throws: SyncError.self) { try await device.sync() }
            #expect(error?.code == .syncFailed && error?.httpStatus == 503 && error?.serverError?.code == "PGRST001")
            #expect(error?.message.contains(first.id.uuidString.lowercased()) == false)
            #expect(error?.message.contains(Stamp.t1) == false)
            // Only the failing write was tried; the one behind it waits.
            #expect(await scene.guardedUpdates().map(\.id) == [first.id], "attempt \(attempt)")
            #expect(try device.pending().map(\.rowID) == [first.id, second.id])
            #expect(await device.currentStatus()?.pendingCount == 2)
        }
        let held = try #require(try device.pending().first)
        try device.store.discardPendingMutation(id: held.id)
        let report = try await device.sync()
        #expect(report.synced == 1)
        #expect(await scene.serverTask(second.id)?["title"] == .text("Call mum back"))
        #expect(await scene.serverTask(first.id)?["title"] == .text("Buy milk"))
        #expect(try device.pending().isEmpty)
    }

    @Test func aStatusCountsEveryWriteInExactlyOnePlace() async throws {
        let device = try scene.device("a", resolver: holdTitleConflicts)
        let held = try await scene.syncedTask(on: device)
        let denied = try await scene.syncedTask(on: device, TaskItem(title: "Call mum"))
        let waiting = try await scene.syncedTask(on: device, TaskItem(title: "Water plants"))
        try await device.edit(held.id) { $0.title = "Mine" }
        try await device.edit(denied.id) { $0.title = "Call mum back" }
        await scene.changeElsewhere(held.id, ColumnValues(["title": .text("Theirs")]), version: Stamp.t2)
        await scene.server.denyUpdates(in: "tasks", id: denied.id)
        try await device.sync()
        await device.engine.setNetworkEnabled(false)
        try await device.edit(waiting.id) { $0.done = true }
        let status = try #require(await device.currentStatus())
        #expect(status.pendingCount == 1 && status.conflictedCount == 1 && status.rejectedCount == 1)
        #expect(status.dirtyCount == 0)
    }
}
