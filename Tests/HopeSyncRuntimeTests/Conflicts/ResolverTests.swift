import Foundation
import HopeSchema
import HopeSync
import HopeSyncTestSupport
import Testing

/// The resolver: a throw or no answer in time holds the write (logged with the table and the
/// failure's type only), and a write is sent at most three times in one pass.
@Suite struct ResolverTests {
    let scene = ConflictScene()

    struct ResolverBroke: Error {}

    func conflictedTask(_ device: TestDevice) async throws -> TaskItem {
        let task = try await scene.syncedTask(on: device)
        try await device.edit(task.id) { $0.title = "Secret plan A" }
        await scene.changeElsewhere(task.id, ColumnValues(["title": .text("Secret plan B")]), version: Stamp.t2)
        return task
    }

    @Test func aResolverThatThrowsHoldsTheWrite() async throws {
        let warnings = Warnings()
        let device = try scene.device("a", resolver: { _ in throw ResolverBroke() }, warnings: warnings)
        let task = try await conflictedTask(device)
        let report = try await device.sync()
        #expect(report.conflicted.map(\.rowID) == [task.id] && report.synced == 0)
        #expect(try device.task(task.id)?.title == "Secret plan B")
        let warning = try #require(warnings.all.first)
        #expect(warnings.all.count == 1)
        #expect(warning.contains("tasks") && warning.contains("ResolverBroke"))
        #expect(!warning.contains("Secret") && !warning.contains(task.id.uuidString.lowercased()) && !warning.contains(Stamp.t1))
    }

    @Test func aResolverThatTakesTooLongHoldsTheWrite() async throws {
        let warnings = Warnings()
        let device = try scene.device(
            "a",
            resolver: { _ in
                try? await Task.sleep(for: .seconds(5))
                return .keepLocal
            }, timeout: .milliseconds(50), warnings: warnings)
        let task = try await conflictedTask(device)
        let report = try await device.sync()
        #expect(report.conflicted.count == 1 && report.synced == 0)
        #expect(warnings.all.count == 1 && warnings.all.first?.contains("tasks") == true)
        #expect(await scene.serverTask(task.id)?["title"] == .text("Secret plan B"))
        #expect(try device.store.conflictedMutations().count == 1)
    }

    @Test func aRowThatKeepsMovingIsParkedAfterTheThirdSend() async throws {
        let asked = ConflictSeen()
        let server = scene.server
        let moves = Counter()
        let device = try scene.device(
            "a",
            resolver: { conflict in
                asked.record(conflict)
                // Another device edits the row again before this one's resend arrives.
                let id = UUID(uuidString: conflict.rowKey["id"] ?? "") ?? UUID()
                await server.changeRow(in: "tasks", id: id, ColumnValues(["title": .text("Moved \(moves.next())")]))
                return .keepLocal
            })
        let task = try await conflictedTask(device)
        await scene.server.clearRequestLog()
        let report = try await device.sync()
        #expect(await scene.guardedUpdates().count == 3)
        #expect(asked.all.count == 2)
        let entry = try #require(report.conflicted.first)
        #expect(entry.rowID == task.id && entry.message.contains("3 sends"))
        #expect(entry.server?["title"] == .text("Moved 2"))
        #expect(report.synced == 0 && report.conflictsResolved == 0)
        // The next pass starts again from the entry: Keep mine lands once the row is still.
        try device.store.resolveConflictedMutation(id: entry.id, resolution: .keepLocal)
        let settled = try await device.sync()
        #expect(settled.synced == 1 && asked.all.count == 2)
        #expect(await scene.serverTask(task.id)?["title"] == .text("Secret plan A"))
    }

    @Test func theResolverRunsOutsideEveryDatabaseTransaction() async throws {
        let box = StoreBox()
        let seen = Locked<[String]>([])
        let device = try scene.device(
            "a",
            resolver: { conflict in
                // Reading and writing the store from the resolver must not wait on the pass.
                let store = try #require(box.store)
                let titles = try await store.read { try $0.fetchAll(TaskItem.self).map(\.title) }
                seen.withLock { $0 = titles }
                try await store.write { try $0.save(TaskItem(title: "Written by the resolver")) }
                return .keepLocal
            })
        box.store = device.store
        _ = try await conflictedTask(device)
        let report = try await device.sync()
        #expect(report.conflictsResolved == 1)
        #expect(seen.withLock { $0 } == ["Secret plan A"])
        #expect(try await device.store.read { try $0.fetchCount(TaskItem.self) } == 2)
    }

    @Test func withoutAResolverAMovedUpdateKeepsLocalAndAGoneOneKeepsServer() {
        let moved = MutationConflict(
            mutationID: 1, table: "tasks", operation: .update, rowKey: ["id": "x"], base: ColumnValues(columns: [], values: []),
            local: ColumnValues(["title": .text("a")]), server: ColumnValues(["title": .text("b")]),
            changedOnServer: ["title"], conflictingColumns: ["title"]
        )
        let gone = MutationConflict(
            mutationID: 1, table: "tasks", operation: .update, rowKey: ["id": "x"], base: ColumnValues(columns: [], values: []),
            local: ColumnValues(["title": .text("a")]), server: nil, changedOnServer: [], conflictingColumns: []
        )
        let goneDelete = MutationConflict(
            mutationID: 1, table: "tasks", operation: .delete, rowKey: ["id": "x"], base: ColumnValues(columns: [], values: []),
            local: nil, server: ColumnValues(["title": .text("b")]), changedOnServer: [], conflictingColumns: []
        )
        #expect(ConflictResolution.default(for: moved) == .keepLocal)
        #expect(ConflictResolution.default(for: gone) == .keepServer)
        #expect(ConflictResolution.default(for: goneDelete) == .keepLocal)
    }
}

final class Counter: Sendable {
    private let value = Locked(0)

    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
