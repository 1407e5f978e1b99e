import Foundation
import HopeSchema
import HopeSync
import Testing

/// Seed 000's running example, step by step: two phones, one task, versions T1, T2 and T3.
@Suite struct WorkedExampleTests {
    let scene = ConflictScene()

    @Test func twoPhonesOneTask() async throws {
        let shown = ConflictSeen()
        let phoneA = try scene.device(
            "phone-a",
            resolver: { conflict in
                shown.record(conflict)
                return try await holdTitleConflicts(conflict)
            })
        let phoneB = try scene.device("phone-b")

        // 1. Phone A reads the task at T1; offline, it renames it and ticks it done.
        let task = try await scene.syncedTask(on: phoneA)
        #expect(task.updatedAt == Stamp.t1)
        try await phoneB.sync()
        await phoneA.engine.setNetworkEnabled(false)
        try await phoneA.edit(task.id) {
            $0.title = "Buy oat milk"
            $0.done = true
        }
        let queued = try #require(try phoneA.pending().first)
        #expect(queued.baseVersion == Stamp.t1)
        #expect(queued.body == ColumnValues(["title": .text("Buy oat milk"), "done": .bool(true)]))
        #expect(await phoneA.currentStatus()?.pendingCount == 1)

        // 2. Phone B renames it and ticks it done too; the trigger moves updated_at to T2.
        try await phoneB.edit(task.id) {
            $0.title = "Buy almond milk"
            $0.done = true
        }
        await scene.server.setNextVersions([Stamp.t2])
        let bReport = try await phoneB.sync()
        #expect(bReport.synced == 1)
        #expect(await scene.serverTask(task.id)?["updated_at"] == .text(Stamp.t2))

        // 3. Phone A comes back: the update is sent preconditioned on T1, and finds nothing.
        await scene.server.clearRequestLog()
        await phoneA.engine.setNetworkEnabled(true)
        let report = try await phoneA.sync()
        let sends = await scene.guardedUpdates()
        #expect(sends.count == 1)
        let send = try #require(sends.first)
        #expect(send.id == task.id && send.baseVersion == Stamp.t1 && send.filters.isEmpty)
        #expect(send.returning == ["id", "updated_at", "title", "done"])
        #expect(send.values == ColumnValues(["title": .text("Buy oat milk"), "done": .bool(true)]))

        // 4. The read by key finds the row at T2.
        let reads = await scene.fetches()
        #expect(reads.map(\.id) == [task.id])
        // tasks are shared: it also asks whose write the row holds.
        #expect(reads.first?.columns == ["id", "updated_at", "title", "done", "deleted_ms", "updated_by"])

        // 5. The resolver is shown the conflict: title and done changed on the server, only the
        // title disagrees (both phones ticked it done). It holds it.
        let conflict = try #require(shown.all.first)
        #expect(shown.all.count == 1)
        #expect(conflict.mutationID == queued.id && conflict.table == "tasks" && conflict.operation == .update)
        #expect(conflict.rowKey == ["id": task.id.uuidString.lowercased()])
        #expect(conflict.base == ColumnValues(["title": .text("Buy milk"), "done": .bool(false), "updated_at": .text(Stamp.t1)]))
        #expect(conflict.local == ColumnValues(["title": .text("Buy oat milk"), "done": .bool(true)]))
        #expect(
            conflict.server
                == ColumnValues([
                    "id": .text(task.id.uuidString.lowercased()), "updated_at": .text(Stamp.t2),
                    "title": .text("Buy almond milk"), "done": .bool(true),
                ]))
        #expect(conflict.changedOnServer == ["title", "done"] && conflict.conflictingColumns == ["title"])
        #expect(report.synced == 0 && report.conflictsResolved == 0 && report.conflictsKeptServer == 0)
        let entry = try #require(report.conflicted.first)
        #expect(report.conflicted.count == 1)
        #expect(entry.id == queued.id && entry.table == "tasks" && entry.operation == .update && entry.rowID == task.id)
        #expect(entry.changedOnServer == ["title", "done"])
        #expect(entry.conflictingColumns == ["title"])
        #expect(entry.base == ColumnValues(["title": .text("Buy milk"), "done": .bool(false), "updated_at": .text(Stamp.t1)]))
        #expect(entry.body == ColumnValues(["title": .text("Buy oat milk"), "done": .bool(true)]))
        #expect(entry.serverVersion == Stamp.t2)
        #expect(entry.server?["title"] == .text("Buy almond milk"))
        #expect(entry.message == "The row changed on the server since this write was made")
        #expect(try phoneA.store.conflictedMutations() == [entry])
        // The list shows the server's title, under the version the device saw.
        let shownRow = try #require(try phoneA.task(task.id))
        #expect(shownRow.title == "Buy almond milk" && shownRow.done && shownRow.updatedAt == Stamp.t1)
        let status = try #require(await phoneA.currentStatus())
        #expect(status.pendingCount == 0 && status.conflictedCount == 1 && status.rejectedCount == 0)

        // 7. Keep mine: queued again under a new id with T2 as its base, sent, and landing at T3.
        try phoneA.store.resolveConflictedMutation(id: entry.id, resolution: .keepLocal)
        let requeued = try #require(try phoneA.pending().first)
        #expect(requeued.id != entry.id && requeued.baseVersion == Stamp.t2)
        #expect(try phoneA.task(task.id)?.title == "Buy oat milk")
        await scene.server.clearRequestLog()
        await scene.server.setNextVersions([Stamp.t3])
        let kept = try await phoneA.sync()
        let resend = try #require(await scene.guardedUpdates().first)
        #expect(resend.baseVersion == Stamp.t2)
        #expect(resend.values == ColumnValues(["title": .text("Buy oat milk"), "done": .bool(true)]))
        #expect(await scene.fetches().isEmpty)
        #expect(kept.synced == 1 && kept.conflictsResolved == 0 && kept.conflicted.isEmpty)
        let landed = try #require(try phoneA.task(task.id))
        #expect(landed.title == "Buy oat milk" && landed.done && landed.updatedAt == Stamp.t3)
        #expect(await scene.serverTask(task.id)?["title"] == .text("Buy oat milk"))
        #expect(try phoneA.store.conflictedMutations().isEmpty)
        #expect(try phoneA.pending().isEmpty)

        // Phone B pulls the result.
        try await phoneB.sync()
        #expect(try phoneB.task(task.id)?.title == "Buy oat milk")
        #expect(try phoneB.task(task.id)?.updatedAt == Stamp.t3)
    }

    @Test func keepTheirsDropsTheWriteAndLeavesTheServersTitle() async throws {
        let phoneA = try scene.device("phone-a", resolver: holdTitleConflicts)
        let task = try await scene.syncedTask(on: phoneA)
        try await phoneA.edit(task.id) { $0.title = "Buy oat milk" }
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Buy almond milk")]), version: Stamp.t2)
        let entry = try #require(try await phoneA.sync().conflicted.first)
        try phoneA.store.resolveConflictedMutation(id: entry.id, resolution: .keepServer)
        #expect(try phoneA.store.conflictedMutations().isEmpty && phoneA.pending().isEmpty)
        #expect(try phoneA.task(task.id)?.title == "Buy almond milk")
        try await phoneA.sync()
        #expect(await scene.serverTask(task.id)?["title"] == .text("Buy almond milk"))
        #expect(try phoneA.task(task.id)?.title == "Buy almond milk")
    }
}
