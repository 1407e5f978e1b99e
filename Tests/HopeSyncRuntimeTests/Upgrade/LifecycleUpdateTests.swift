import Foundation
import HopeSyncLifecycleSchemaV1
import HopeSyncLifecycleSchemaV2
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@testable import HopeSync

/// What an update to a build that changed shipped columns (decision 0052, Lifecycle v1 to v2)
/// leaves on the device.
///
/// A retype (habits.goal, an int, is goal_text, a text) converts what the device holds with
/// SQLite's CAST. What an old build holds of a
/// value a newer build wrote is the server's `back` of it, which may have lost it (text an int
/// cannot hold): the update pulls the table again, and the server's value replaces the device's
/// wherever another device wrote it last; the device's own writes, sent or not, keep theirs.
@Suite struct LifecycleUpdateTests {
    let user = UUID()

    @Test func theUpdateShowsTheServersValueWhereTheOldBuildHeldALossyCopy() async throws {
        let server = await LifecycleBuilds.server()
        await server.migrate(to: LifecycleBuilds.serverV2)
        let clock = ManualClock()
        let old = try TestDevice("old", user: user, transport: server, schema: LifecycleBuilds.v1, clock: clock)
        let new = try TestDevice("new", user: user, transport: server, schema: LifecycleBuilds.v2, clock: clock)
        defer { for device in [old, new] { device.store.close() } }

        let words = try await new.store.write { try $0.save(HopeSyncLifecycleSchemaV2.Habit(title: "Read", goalText: "ten pages")) }
        let number = try await new.store.write { try $0.save(HopeSyncLifecycleSchemaV2.Habit(title: "Walk", goalText: "8")) }
        try await new.sync()
        try await old.sync()
        let lossy = try #require(try await old.store.read { try $0.fetchOne(HopeSyncLifecycleSchemaV1.Habit.self, id: words.id) })
        #expect(lossy.goal == nil, "an int cannot hold 'ten pages': the server's back gives null")

        // The old build's own writes: one sent, one not (an edit of the row the new build wrote).
        clock.advance(10)
        let run = try await old.store.write { try $0.save(HopeSyncLifecycleSchemaV1.Habit(name: "Run", streak: 1, goal: 5)) }
        try await old.sync()
        clock.advance(10)
        try await old.store.write { tx in
            var walk = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV1.Habit.self, id: number.id))
            walk.goal = 12
            try tx.save(walk)
        }

        let updated = try old.reopened(with: LifecycleBuilds.v2)
        defer { updated.store.close() }
        try await updated.sync()
        let goals = try await updated.store.read { tx in
            try [words.id, number.id, run.id].map { try tx.fetchOne(HopeSyncLifecycleSchemaV2.Habit.self, id: $0)?.goalText }
        }
        #expect(goals == ["ten pages", "12", "5"])
        try await new.sync()
        #expect(try await new.store.read { try $0.fetchOne(HopeSyncLifecycleSchemaV2.Habit.self, id: number.id) }?.goalText == "12")
        for device in [updated, new] { #expect(try await MixedBuilds.differences(device, server).isEmpty) }
        #expect(try updated.store.rejectedMutations().isEmpty)
    }

    /// A deprecated column (habits.streak) leaves with its stamps: a row whose newest write was
    /// of it, not sent before the update, takes its newest remaining stamp as its pair, so its
    /// next push settles it (before, it stayed dirty and was pushed at every pass).
    @Test func anUnsentWriteOfADeprecatedColumnLeavesItsRowSettled() async throws {
        let server = await LifecycleBuilds.server()
        await server.migrate(to: LifecycleBuilds.serverV2)
        let clock = ManualClock()
        let old = try TestDevice("old", user: user, transport: server, schema: LifecycleBuilds.v1, clock: clock)
        let habit = try await old.store.write { try $0.save(HopeSyncLifecycleSchemaV1.Habit(name: "Run", streak: 1)) }
        try await old.sync()
        clock.advance(10)
        try await old.store.write { tx in
            var run = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV1.Habit.self, id: habit.id))
            run.streak = 2
            try tx.save(run)
        }
        let updated = try old.reopened(with: LifecycleBuilds.v2)
        defer { updated.store.close() }
        try await updated.sync()
        #expect(try updated.dirtyCount() == 0)
        #expect(try await updated.sync().pushed == 0, "nothing left to push")
        #expect(try await MixedBuilds.differences(updated, server).isEmpty)
    }

    /// The clock resumes from the stamps the rows hold. An update that drops what held this
    /// device's newest (a deprecated column's stamp, a deprecated table's rows) must not have it
    /// stamp again what the server already holds for other writes: two writes of one device
    /// never share a stamp (found by recording every stamp the clock gave out in the lifecycle
    /// fleet: 86 given twice in 300 runs). The newest here is a
    /// tag's: another device edited the tag's label since, so it is no row's pair, only the
    /// stamp of the columns that device left.
    @Test func theFirstWriteAfterAnUpdateIsStampedPastEveryEarlierOne() async throws {
        let server = await LifecycleBuilds.server()
        let clock = ManualClock()
        let old = try TestDevice("old", user: user, transport: server, schema: LifecycleBuilds.v1, clock: clock)
        let other = try TestDevice("other", user: user, transport: server, schema: LifecycleBuilds.v1, clock: clock)
        defer { other.store.close() }
        let habit = try await old.store.write { try $0.save(HopeSyncLifecycleSchemaV1.Habit(name: "Run", streak: 1)) }
        // The wall clock stands still: each later stamp is the one before it plus one.
        try await old.store.write { tx in
            var run = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV1.Habit.self, id: habit.id))
            run.streak = 2
            try tx.save(run)
        }
        let tag = try await old.store.write { try $0.save(HopeSyncLifecycleSchemaV1.Tag(label: "morning")) }
        try await old.sync()
        let tags = await server.rows(of: "tags")
        let tagStamp = try #require(tags[tag.id.lowercasedString]?["updated_ms"]?.int)
        try await other.sync()
        try await other.store.write { tx in
            var morning = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV1.Tag.self, id: tag.id))
            morning.label = "early"
            try tx.save(morning)
        }
        try await other.sync()
        try await old.sync()
        let habits = try #require(LifecycleBuilds.v2.table(named: "habits"))

        await server.migrate(to: LifecycleBuilds.serverV2)
        let updated = try old.reopened(with: LifecycleBuilds.v2)
        defer { updated.store.close() }
        try await updated.store.write { tx in
            var run = try #require(try tx.fetchOne(HopeSyncLifecycleSchemaV2.Habit.self, id: habit.id))
            run.title = "Run far"
            try tx.save(run)
        }
        let rows = try localRows(updated, habits)
        let stamp = try #require(rows[habit.id.lowercasedString]?["updated_ms"]?.int)
        #expect(stamp > tagStamp, "stamped \(stamp), at or before the tag's \(tagStamp), a stamp this device used already")
        try await updated.sync()
        #expect(try await MixedBuilds.differences(updated, server).isEmpty)
    }
}
