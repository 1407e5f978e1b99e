import Foundation
@_spi(Transport) import HopeSync
import HopeSyncLifecycleSchemaV1
import HopeSyncLifecycleSchemaV2
import HopeSyncLifecycleSchemaV3
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// Issue 34's walk through the lifecycle on PostgreSQL with three builds alive at once (before,
/// during and after: Tests/Fixtures/Lifecycle v1, v2, v3), their passes running concurrently:
/// the server starts at v1; v2's migration renames, retypes and deprecates while the v1 build
/// syncs; v1 and v2 write and sync at once; v3's migration (oldest_writer 2, the renames
/// finished, streak removed) lands while the v1 build holds writes; v1, v2 and v3 sync at once,
/// v1 refused and pulling; v1 updates and what it held lands. Every value any build wrote is
/// then read by every build in its own shape.
@Suite struct ThreeBuildsEndToEndTests {
    typealias Build = LifecycleEndToEndTests.Build
    let user = UUID()

    @Test(arguments: LifecycleEndToEndTests.pulls)
    func beforeDuringAndAfterWriteAtOnceAndNothingAnyBuildWroteIsLost(_ pull: String?) async throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try LifecycleEndToEndTests.migrate(connection, to: "v1")
        let transport = PostgresTransport(url: database.url)
        let before = try Build("before", LifecycleEndToEndTests.v1(pull), transport, user: user)
        let habit = try await before.store.write { try $0.save(HopeSyncLifecycleSchemaV1.Habit(name: "Run", streak: 1)) }
        let note = try await before.store.write { try $0.save(HopeSyncLifecycleSchemaV1.Note(heading: "Trip", body: "tent")) }
        try await before.engine.syncNow()

        // v2's migration while the v1 build is in use; then both builds write and sync at once.
        try LifecycleEndToEndTests.migrate(connection, to: "v2", from: 2)
        let during = try Build("during", LifecycleEndToEndTests.v2(pull), transport, user: user)
        try await during.engine.syncNow()
        try await before.store.write { tx in
            var run = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV1.Habit.self, id: habit.id))
            run.name = "Morning run"
            run.goal = 3
            run.streak = 2
            try tx.save(run)
        }
        try await during.store.write { tx in
            var run = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV2.Habit.self, id: habit.id))
            run.color = "#222222"
            try tx.save(run)
        }
        try await Self.syncAtOnce([before, during])
        try await Self.syncAtOnce([before, during])
        let seenByDuring = try #require(try await during.store.read { try $0.fetchOne(HopeSyncLifecycleSchemaV2.Habit.self, id: habit.id) })
        #expect(seenByDuring.title == "Morning run" && seenByDuring.goalText == "3" && seenByDuring.color == "#222222")

        // The v1 build writes and does not sync; v3's migration passes it by.
        let held = try await before.store.write { tx in
            var run = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV1.Habit.self, id: habit.id))
            run.name = "Evening run"
            try tx.save(run)
            var trip = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV1.Note.self, id: note.id))
            trip.heading = "Trip to the sea"
            try tx.save(trip)
            return try tx.save(HopeSyncLifecycleSchemaV1.Habit(name: "Swim", streak: 0, goal: 4))
        }
        try LifecycleEndToEndTests.migrate(connection, to: "v3", from: 3)
        let after = try Build("after", LifecycleEndToEndTests.v3(pull), transport, user: user)
        defer { for build in [during, after] { build.remove() } }
        try await after.engine.syncNow()
        try await during.store.write { tx in
            var run = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV2.Habit.self, id: habit.id))
            run.color = "#333333"
            try tx.save(run)
        }
        let read = try await after.store.write { try $0.save(HopeSyncLifecycleSchemaV3.Habit(title: "Read", goalText: "five pages")) }
        // All three at once: v1 is refused (its writes kept, nothing rejected) and keeps pulling.
        try await Self.syncAtOnce([before, during, after], refused: [before])
        try await Self.syncAtOnce([before, during, after], refused: [before])
        try await LifecycleEndToEndTests.passBelowTheFloor(before)
        #expect(await before.engine.status.phase == .updateRequired)
        #expect(try before.store.rejectedMutations().isEmpty)
        #expect(try await before.store.read { try $0.dirtyCount() } > 0, "what it held waits")
        let readSeenByBefore = try #require(
            try await before.store.read { try $0.fetchOne(HopeSyncLifecycleSchemaV1.Habit.self, id: read.id) })
        #expect(readSeenByBefore.name == "Read" && readSeenByBefore.goal == nil, "an int cannot hold 'five pages'")
        #expect(try await before.store.read { try $0.fetchOne(HopeSyncLifecycleSchemaV1.Habit.self, id: habit.id) }?.color == "#333333")

        // The v1 build updates (straight to v3): what it held lands through the new names, and
        // it shows the retyped value its old copy could not hold.
        let updated = try await before.reopened(as: "before", LifecycleEndToEndTests.v3(pull), transport, user: user)
        defer { updated.remove() }
        try await Self.syncAtOnce([updated, during, after])
        try await Self.syncAtOnce([updated, during, after])
        for build in [updated, after] {
            let rows = try await build.store.read { tx in
                try [habit.id, held.id, read.id].map { try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV3.Habit.self, id: $0)) }
            }
            #expect(rows.map(\.title) == ["Evening run", "Swim", "Read"])
            #expect(rows.map(\.goalText) == ["3", "4", "five pages"])
            #expect(rows[0].color == "#333333")
            #expect(
                try await build.store.read { try $0.fetchOne(HopeSyncLifecycleSchemaV3.Note.self, id: note.id) }?.title == "Trip to the sea"
            )
        }
        let rows = try await during.store.read { tx in
            try [habit.id, held.id, read.id].map { try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV2.Habit.self, id: $0)) }
        }
        #expect(rows.map(\.title) == ["Evening run", "Swim", "Read"] && rows.map(\.goalText) == ["3", "4", "five pages"])
        #expect(
            try await during.store.read { try $0.fetchOne(HopeSyncLifecycleSchemaV2.Note.self, id: note.id) }?.title == "Trip to the sea")
        for build in [updated, during, after] {
            #expect(try build.store.rejectedMutations().isEmpty && build.store.pendingMutations().isEmpty)
            #expect(try await build.store.read { try $0.dirtyCount() } == 0)
        }
    }

    /// The builds' passes, run concurrently; those `refused` are below the floor, their passes
    /// refused once they heard of it (`.updateRequired`).
    static func syncAtOnce(_ builds: [Build], refused: [Build] = []) async throws {
        let passes = builds.map { build in (build.engine, refused.contains { $0 === build }) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (engine, mayBeRefused) in passes {
                group.addTask {
                    do {
                        _ = try await engine.syncNow()
                    } catch let error as SyncError where mayBeRefused && error.code == .updateRequired {
                        // Its pulls ran; its writes wait for the update.
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
