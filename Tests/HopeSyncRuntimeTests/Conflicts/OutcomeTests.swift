import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// Every row of seed 000's outcome table, for an UPDATE and for a DELETE, and the three quiet
/// cases. A delete of a version-table row is a guarded update setting `deleted_ms`.
@Suite struct OutcomeTests {
    let scene = ConflictScene()

    /// A task synced at T1 on a fresh device, then edited (title) offline.
    func editedTask(resolver: ConflictResolver? = nil, title: String = "Buy oat milk") async throws -> (TestDevice, TaskItem) {
        let device = try scene.device("a", resolver: resolver)
        let task = try await scene.syncedTask(on: device)
        try await device.edit(task.id) { $0.title = title }
        return (device, task)
    }

    func deletedTask(resolver: ConflictResolver? = nil) async throws -> (TestDevice, TaskItem) {
        let device = try scene.device("a", resolver: resolver)
        let task = try await scene.syncedTask(on: device)
        try await device.store.write { try $0.delete(TaskItem.self, id: task.id) }
        return (device, task)
    }

    // MARK: No connection

    @Test(arguments: [MutationOperation.update, .delete])
    func noConnectionForTheReadStopsThePassAndKeepsTheWrite(_ operation: MutationOperation) async throws {
        let reads = FailingReads(base: scene.server)
        let device = try scene.device("a", transport: reads)
        let task = try await scene.syncedTask(on: device)
        if operation == .update {
            try await device.edit(task.id) { $0.title = "Buy oat milk" }
        } else {
            try await device.store.write { try $0.delete(TaskItem.self, id: task.id) }
        }
        await scene.changeElsewhere(task.id, ColumnValues(["notes": .text("elsewhere")]), version: Stamp.t2)
        reads.failing = true
        await #expect { try await device.sync() } throws: { ($0 as? SyncError)?.code == .connectivity }
        #expect(try device.pending().map(\.operation) == [operation])
        #expect(try device.pending().first?.baseVersion == Stamp.t1)
        #expect(await scene.guardedUpdates().count == 1)
        reads.failing = false
        let report = try await device.sync()
        // A moved row is always a conflict for a delete (settled by the default, keepLocal); an update
        // whose columns did not move is resent without one.
        #expect(report.synced == 1 && report.conflictsResolved == (operation == .delete ? 1 : 0))
        #expect(try device.pending().isEmpty)
    }

    // MARK: Gone

    @Test func anUpdateOfAGoneRowIsKeptServerByDefaultAndNothingIsRecreated() async throws {
        let (device, task) = try await editedTask()
        await scene.server.removeRow(from: "tasks", id: task.id)
        let report = try await device.sync()
        #expect(report.conflictsKeptServer == 1 && report.synced == 0)
        #expect(try device.task(task.id) == nil)
        #expect(await scene.serverTask(task.id) == nil)
        #expect(try device.pending().isEmpty)
    }

    @Test func anUpdateOfARowHiddenByAPolicyMeetsItAsGone() async throws {
        let shown = ConflictSeen()
        let (device, task) = try await editedTask(resolver: { conflict in
            shown.record(conflict)
            return .hold
        })
        await scene.server.hideRow(in: "tasks", id: task.id)
        let report = try await device.sync()
        let conflict = try #require(shown.all.first)
        #expect(conflict.server == nil && conflict.local?["title"] == .text("Buy oat milk"))
        // Parked because gone: the cached row stays as it was.
        #expect(report.conflicted.first?.serverVersion == nil)
        #expect(try device.task(task.id)?.title == "Buy oat milk")
        #expect(throws: SyncError.self) { try device.store.resolveConflictedMutation(id: conflict.mutationID, resolution: .keepLocal) }
    }

    @Test func aDeleteOfAGoneRowIsAlreadyGone() async throws {
        let (device, task) = try await deletedTask()
        await scene.server.removeRow(from: "tasks", id: task.id)
        let report = try await device.sync()
        #expect(report.synced == 1 && report.alreadyOnServer == 1 && report.conflictsKeptServer == 0)
        #expect(try device.pending().isEmpty)
    }

    // MARK: No longer meets the filter

    @Test func anUpdateWhoseRowNoLongerMeetsItsConditionsIsSynced() async throws {
        let device = try scene.device("a")
        let task = try await scene.syncedTask(on: device)
        try await device.store.write { writer in
            var edited = try #require(try writer.fetchOne(TaskItem.self, id: task.id))
            edited.title = "Buy oat milk"
            try writer.save(edited, onlyIf: [Filter("done", .eq, .bool(false))])
        }
        await scene.changeElsewhere(task.id, ColumnValues(["done": .bool(true)]), version: Stamp.t2)
        let report = try await device.sync()
        let send = try #require(await scene.guardedUpdates().last)
        #expect(send.filters == [Filter("done", .eq, .bool(false))])
        #expect(report.synced == 1 && report.alreadyOnServer == 0 && report.conflicted.isEmpty)
        #expect(await scene.serverTask(task.id)?["title"] == .text("Buy milk"))
        #expect(try device.pending().isEmpty)
    }

    @Test func aDeleteOfARowDeletedElsewhereIsSyncedAsAlreadyOnTheServer() async throws {
        let (device, task) = try await deletedTask()
        await scene.changeElsewhere(task.id, ColumnValues(["deleted_ms": .int(5)]), version: Stamp.t2)
        let report = try await device.sync()
        let send = try #require(await scene.guardedUpdates().last)
        #expect(send.filters == [Filter("deleted_ms", .isNull)] && send.returning == ["id", "updated_at"])
        #expect(report.synced == 1 && report.alreadyOnServer == 1)
        #expect(await scene.serverTask(task.id)?["deleted_ms"] == .int(5))
    }

    // MARK: At the base version: a policy denies it

    @Test(arguments: [MutationOperation.update, .delete])
    func aWriteAPolicyDeniesGoesToTheRejectedListUnsent(_ operation: MutationOperation) async throws {
        let (device, task) = operation == .update ? try await editedTask() : try await deletedTask()
        await scene.server.denyUpdates(in: "tasks", id: task.id)
        let report = try await device.sync()
        #expect(report.rejected == 1 && report.synced == 0)
        let rejected = try #require(try device.store.rejectedMutations().first)
        #expect(rejected.operation == operation && rejected.rowID == task.id && rejected.serverError == nil && rejected.isRetryable)
        #expect(try device.pending().isEmpty)
        #expect(await scene.guardedUpdates().count == 1)
        // Retry once the policy allows it: queued again, and it lands.
        await scene.server.denyUpdates(in: "tasks", id: task.id, false)
        try device.store.retryRejectedMutation(id: rejected.id)
        #expect(try device.pending().first?.baseVersion == Stamp.t1)
        let retried = try await device.sync()
        #expect(retried.synced == 1 && retried.rejected == 0)
        #expect(try device.store.rejectedMutations().isEmpty)
    }

    // MARK: Already holding every value

    @Test func anUpdateWhoseEarlierSendLandedIsAlreadyOnTheServer() async throws {
        let (device, task) = try await editedTask()
        await scene.server.setNextVersions([Stamp.t2])
        await scene.server.loseNextAnswers(1)
        await #expect { try await device.sync() } throws: { ($0 as? SyncError)?.isNetworkFailure == true }
        #expect(try device.pending().first?.baseVersion == Stamp.t1)
        let report = try await device.sync()
        #expect(report.synced == 1 && report.alreadyOnServer == 1 && report.conflicted.isEmpty)
        #expect(try device.task(task.id)?.updatedAt == Stamp.t2)
        #expect(try device.task(task.id)?.title == "Buy oat milk")
    }

    // MARK: Stale base and moved

    @Test func anUpdateWhoseColumnsDidNotMoveIsResentWithoutTheResolver() async throws {
        let asked = ConflictSeen()
        let (device, task) = try await editedTask(resolver: {
            asked.record($0)
            return .hold
        })
        await scene.changeElsewhere(task.id, ColumnValues(["done": .bool(true)]), version: Stamp.t2)
        await scene.server.setNextVersions([Stamp.t3])
        let report = try await device.sync()
        #expect(asked.all.isEmpty)
        #expect(report.synced == 1 && report.conflictsResolved == 0 && report.alreadyOnServer == 0)
        #expect(await scene.guardedUpdates().map(\.baseVersion) == [Stamp.t1, Stamp.t2])
        let row = try #require(await scene.serverTask(task.id))
        #expect(row["title"] == .text("Buy oat milk") && row["done"] == .bool(true) && row["updated_at"] == .text(Stamp.t3))
    }

    @Test func aMovedUpdateIsKeptLocalByDefaultColumnByColumn() async throws {
        let (device, task) = try await editedTask()
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Buy almond milk"), "done": .bool(true)]), version: Stamp.t2)
        let report = try await device.sync()
        #expect(report.synced == 1 && report.conflictsResolved == 1)
        let row = try #require(await scene.serverTask(task.id))
        #expect(row["title"] == .text("Buy oat milk") && row["done"] == .bool(true))
        #expect(try device.task(task.id)?.done == true)
    }

    @Test func aMovedDeleteIsAConflictWithNoLocalAndEmptyColumnSets() async throws {
        let shown = ConflictSeen()
        let (device, task) = try await deletedTask(resolver: {
            shown.record($0)
            return .keepLocal
        })
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Renamed")]), version: Stamp.t2)
        let report = try await device.sync()
        let conflict = try #require(shown.all.first)
        #expect(conflict.operation == .delete && conflict.local == nil)
        #expect(conflict.changedOnServer.isEmpty && conflict.conflictingColumns.isEmpty)
        #expect(conflict.server?["updated_at"] == .text(Stamp.t2))
        #expect(report.synced == 1 && report.conflictsResolved == 1)
        #expect(await scene.serverTask(task.id)?["deleted_ms"] != .null)
    }

    @Test func applySendsTheColumnsTheResolverMerged() async throws {
        let (device, task) = try await editedTask(resolver: { conflict in
            .apply(ColumnValues(["title": .text("Buy oat and almond milk")]))
        })
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Buy almond milk")]), version: Stamp.t2)
        let report = try await device.sync()
        #expect(report.conflictsResolved == 1)
        #expect(await scene.serverTask(task.id)?["title"] == .text("Buy oat and almond milk"))
        #expect(try device.task(task.id)?.title == "Buy oat and almond milk")
    }

    // MARK: The three quiet cases

    @Test func quietCases() async throws {
        // Phone B only ticked it done: resent at T2 without the resolver.
        let asked = ConflictSeen()
        let a = try scene.device(
            "a",
            resolver: {
                asked.record($0)
                return try await holdTitleConflicts($0)
            })
        let ticked = try await scene.syncedTask(on: a)
        try await a.edit(ticked.id) { $0.title = "Buy oat milk" }
        await scene.changeElsewhere(ticked.id, ColumnValues(["done": .bool(true)]), version: Stamp.t2)
        await scene.server.setNextVersions([Stamp.t3])
        let first = try await a.sync()
        #expect(first.synced == 1 && first.alreadyOnServer == 0 && first.conflictsKeptServer == 0 && asked.all.isEmpty)
        let both = try #require(await scene.serverTask(ticked.id))
        #expect(both["title"] == .text("Buy oat milk") && both["done"] == .bool(true))

        // The first send landed and its answer was lost: already on the server.
        let lost = try await scene.syncedTask(on: a, TaskItem(title: "Buy milk"))
        try await a.edit(lost.id) { $0.title = "Buy oat milk" }
        await scene.server.loseNextAnswers(1)
        _ = try? await a.sync()
        let second = try await a.sync()
        #expect(second.synced == 1 && second.alreadyOnServer == 1 && asked.all.isEmpty)

        // Phone B deleted it: the resolver is asked with server nil, keeps the server, the row goes.
        let deleted = try await scene.syncedTask(on: a, TaskItem(title: "Buy milk"))
        try await a.edit(deleted.id) { $0.title = "Buy oat milk" }
        await scene.changeElsewhere(deleted.id, ColumnValues(["deleted_ms": .int(7)]), version: Stamp.t2)
        let third = try await a.sync()
        #expect(third.conflictsKeptServer == 1 && third.synced == 0)
        #expect(asked.all.count == 1 && asked.all.first?.server == nil)
        let listed = try await a.store.read { try $0.fetchAll(TaskItem.self) }.map(\.id)
        #expect(!listed.contains(deleted.id))
    }
}

/// The conflicts a resolver was shown.
final class ConflictSeen: Sendable {
    private let seen = Locked<[MutationConflict]>([])

    func record(_ conflict: MutationConflict) { seen.withLock { $0.append(conflict) } }
    var all: [MutationConflict] { seen.value }
}

/// The in-memory server, except that reads by key fail as the network does while `failing`.
final class FailingReads: ForwardingTransport, Sendable {
    let base: InMemoryServer
    private let fails = Locked(false)

    var forwardee: any SyncTransport { base }

    init(base: InMemoryServer) {
        self.base = base
    }

    var failing: Bool {
        get { fails.value }
        set { fails.value = newValue }
    }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
        if failing { throw SyncError(.connectivity, "The server cannot be reached.") }
        return try await base.fetch(table, ids: ids, columns: columns, as: user)
    }
}
