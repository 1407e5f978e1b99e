import Foundation
import HopeSchema
import HopeSync
import Testing

/// Every way the user settles a write the server never took (keep theirs, dismissing
/// a conflicted or a rejected write, discarding a queued one) ends, after a sync, with the
/// device holding exactly the server's rows.
@Suite struct SettledRowTests {
    let scene = ConflictScene()

    /// A task whose title this device and another changed: held on the conflicted list.
    func heldConflict(_ device: TestDevice) async throws -> (TaskItem, ConflictedMutation) {
        let task = try await scene.syncedTask(on: device)
        try await device.edit(task.id) { $0.title = "Mine" }
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Theirs")]), version: Stamp.t2)
        try await device.sync()
        let held = try #require(try device.store.conflictedMutations().first)
        return (task, held)
    }

    @Test func keepTheirsLeavesTheDeviceEqualToTheServer() async throws {
        let device = try scene.device("a", resolver: holdTitleConflicts)
        let (task, held) = try await heldConflict(device)
        try device.store.resolveConflictedMutation(id: held.id, resolution: .keepServer)
        try await device.sync()
        #expect(try device.task(task.id)?.title == "Theirs")
        #expect(try device.task(task.id)?.updatedAt == Stamp.t2)
        #expect(try await differences(device, scene.server).isEmpty)
    }

    @Test func dismissingAConflictLeavesTheDeviceEqualToTheServer() async throws {
        let device = try scene.device("a", resolver: holdTitleConflicts)
        let (task, held) = try await heldConflict(device)
        try device.store.dismissConflictedMutation(id: held.id)
        try await device.sync()
        #expect(try device.task(task.id)?.title == "Theirs")
        #expect(try await differences(device, scene.server).isEmpty)
    }

    @Test func aDismissedRefusedNewRowLeavesTheDevice() async throws {
        let device = try scene.device("a")
        await scene.server.refuseRows(in: "activities", with: ServerError(status: 400, code: "23514", message: "refused")) {
            $0["name"] == .text("Refused")
        }
        let refused = try await device.store.write { try $0.save(Activity(name: "Refused")) }
        try await device.sync()
        let entry = try #require(try device.store.rejectedMutations().first)
        try device.store.dismissRejectedMutation(id: entry.id)
        try await device.sync()
        #expect(try await device.store.read { try $0.fetchOne(Activity.self, id: refused.id) } == nil)
        #expect(try await differences(device, scene.server).isEmpty)
    }

    @Test func aDismissedRefusedEditShowsTheServersRowAgain() async throws {
        let device = try scene.device("a")
        let work = try await device.store.write { try $0.save(Activity(name: "Work")) }
        try await device.sync()
        await scene.server.refuseRows(in: "activities", with: ServerError(status: 400, code: "23514", message: "refused")) {
            $0["name"] == .text("Refused")
        }
        var edited = work
        edited.name = "Refused"
        try await device.store.write { [edited] in try $0.save(edited) }
        try await device.sync()
        let entry = try #require(try device.store.rejectedMutations().first)
        try device.store.dismissRejectedMutation(id: entry.id)
        try await device.sync()
        #expect(try await device.store.read { try $0.fetchOne(Activity.self, id: work.id) }?.name == "Work")
        #expect(try await differences(device, scene.server).isEmpty)
    }

    @Test func discardingAQueuedWriteLeavesTheDeviceEqualToTheServer() async throws {
        let device = try scene.device("a")
        let task = try await scene.syncedTask(on: device)
        await scene.server.failNextRequests(
            1, with: SyncError(.server, "down", serverError: ServerError(status: 500, code: "XX000", message: "boom")))
        try await device.edit(task.id) { $0.title = "Never sent" }
        _ = try? await device.sync()
        let pending = try #require(try device.pending().first)
        try device.store.discardPendingMutation(id: pending.id)
        try await device.sync()
        #expect(try device.task(task.id)?.title == "Buy milk")
        #expect(try await differences(device, scene.server).isEmpty)
    }
}
