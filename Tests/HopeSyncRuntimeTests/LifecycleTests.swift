import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@Suite struct LifecycleTests {
    let user = UUID()
    let server = InMemoryServer.hope()

    @Test func nothingIsSentWhenSignedOut() async throws {
        let a = try TestDevice("a", user: user, transport: server, signIn: SignIn(nil))
        try await a.store.write { try $0.save(Activity(name: "Private")) }
        await #expect { try await a.sync() } throws: { ($0 as? SyncError)?.code == .signedOut }
        #expect(await server.requestCount == 0)
    }

    @Test func oneUsersRowsNeverGoWithAnotherUsersToken() async throws {
        let a = try TestDevice("a", user: user, transport: server, signIn: SignIn(UUID()))
        try await a.store.write { try $0.save(Activity(name: "Private")) }
        await #expect { try await a.sync() } throws: { ($0 as? SyncError)?.code == .signedOut }
        #expect(await server.requestCount == 0)
        #expect(try a.dirtyCount() == 1)
    }

    @Test func withTheNetworkSwitchedOffWritesQueueAndServerCallsFail() async throws {
        let a = try TestDevice("a", user: user, transport: server)
        await a.engine.setNetworkEnabled(false)
        try await a.store.write { try $0.save(Activity(name: "Queued")) }
        await #expect { try await a.sync() } throws: { ($0 as? SyncError)?.code == .networkDisabled }
        #expect(await server.requestCount == 0)
        #expect(await a.engine.status.phase == .offline)
        #expect(try a.dirtyCount() == 1)
        await a.engine.setNetworkEnabled(true)
        try await a.sync()
        #expect(try a.dirtyCount() == 0)
    }

    @Test func clearLocalDataEmptiesTheUsersData() async throws {
        let a = try TestDevice("a", user: user, transport: server)
        try await a.store.write { try $0.save(Activity(name: "Synced")) }
        try await a.sync()
        await a.engine.start()
        try await a.engine.clearLocalData()
        #expect(await a.engine.isRunning == false)
        #expect(try await a.store.read { try $0.fetchCount(Activity.self, includingDeleted: true) } == 0)
        // Signing in again pulls everything back from the start.
        let report = try await a.sync()
        #expect(report.pulled == 1)
    }

    @Test func theClockStaysAheadAfterClearingAndReopening() async throws {
        let clock = ManualClock(10_000)
        let a = try TestDevice("a", user: user, transport: server, clock: clock)
        let first = try await a.store.write { try $0.save(Activity(name: "Before")) }
        try await a.engine.clearLocalData()
        clock.now = 5 // the wall clock went back
        let reopened = try a.restarted()
        let next = try await reopened.store.write { try $0.save(Activity(name: "After")) }
        #expect(next.updatedMs > first.updatedMs)
    }

    @Test func versionTablesTakeTheServerRowUnlessTheLocalOneIsDirty() async throws {
        let (a, b) = (try TestDevice("a", user: user, transport: server), try TestDevice("b", user: user, transport: server))
        let list = try await a.store.write { try $0.save(TaskList(name: "Inbox", icon: Data([1, 2]))) }
        let task = try await a.store.write {
            try $0.save(TaskItem(title: "Write", dueAt: SyncTimestamp("2026-10-18T13:00:27.486123+00:00")))
        }
        try await a.sync()
        try await b.sync()
        let pulled = try #require(try await b.store.read { try $0.fetchOne(TaskList.self, id: list.id) })
        #expect(pulled.version == 1 && pulled.icon == Data([1, 2]))
        let pulledTask = try #require(try await b.store.read { try $0.fetchOne(TaskItem.self, id: task.id) })
        #expect(pulledTask.updatedAt != nil && pulledTask.dueAt == task.dueAt)
        // b edits locally (queued); a's newer server write does not replace it before b sends it.
        var local = pulled
        local.name = "Inbox (b)"
        try await b.store.write { [local] in try $0.save(local) }
        var remote = list
        remote.name = "Inbox (a)"
        try await a.store.write { [remote] in try $0.save(remote) }
        try await a.sync()
        // b's edit of a synced row is a guarded write: it meets a's change as a conflict, which
        // the default settles for b's side, sent over a's version; then b pulls.
        let report = try await b.sync()
        #expect(report.synced == 1 && report.conflictsResolved == 1)
        try await a.sync()
        for device in [a, b] {
            #expect(try await device.store.read { try $0.fetchOne(TaskList.self, id: list.id) }?.name == "Inbox (b)")
            #expect(try await differences(device, server).isEmpty)
        }
    }

    @Test func rejectedWritesCanBeRetriedOrDismissed() async throws {
        let refusal = ServerError(status: 400, code: "23514", message: "no")
        await server.refuseRows(in: "activities", with: refusal) { $0["name"] == .text("bad") }
        let a = try TestDevice("a", user: user, transport: server)
        try await a.store.write { tx in
            try tx.save(Activity(name: "bad"))
            try tx.save(Activity(name: "worse"))
        }
        await server.refuseRows(in: "activities", with: refusal) { $0["name"] == .text("worse") }
        try await a.sync()
        var rejected = try await a.store.read { try $0.rejectedMutations() }
        #expect(rejected.count == 2)
        try a.store.dismissRejectedMutation(id: rejected[0].id)
        try a.store.retryRejectedMutation(id: rejected[1].id)
        #expect(try a.dirtyCount() == 1)
        try await a.sync()
        rejected = try await a.store.read { try $0.rejectedMutations() }
        #expect(rejected.count == 1) // refused again
        #expect(try a.dirtyCount() == 0)
    }
}
