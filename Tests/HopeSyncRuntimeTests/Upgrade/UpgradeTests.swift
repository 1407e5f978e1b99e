import Foundation
import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncUpgradeSchemaV1
import HopeSyncUpgradeSchemaV2
import Testing

/// A device on the previous build keeps every value of the new columns, and a device
/// that upgrades shows the server's values of them before its first push and never blanks them.
@Suite struct UpgradeTests {
    let user = UUID()
    let server = MixedBuilds.server()

    @Test func anOldBuildKeepsTheNewColumnAndAnUpgradeShowsIt() async throws {
        let clock = ManualClock()
        let old = try TestDevice("old", user: user, transport: server, schema: MixedBuilds.v1, clock: clock)
        let new = try TestDevice("new", user: user, transport: server, schema: MixedBuilds.v2, clock: clock)
        let habit = try await old.store.write { try $0.save(HopeSyncUpgradeSchemaV1.Habit(name: "Run")) }
        try await old.sync()
        try await new.sync()

        clock.advance(10)
        var withEmoji = try #require(try await new.store.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Habit.self, id: habit.id) })
        withEmoji.emoji = "🏃"
        try await new.store.write { [withEmoji] in try $0.save(withEmoji) }
        try await new.sync()

        clock.advance(10)
        try await old.sync()
        var renamed = try #require(try await old.store.read { try $0.fetchOne(HopeSyncUpgradeSchemaV1.Habit.self, id: habit.id) })
        renamed.name = "Morning run"
        try await old.store.write { [renamed] in try $0.save(renamed) }
        try await old.sync()
        #expect(await server.rows(of: "habits")[habit.id.uuidString.lowercased()]?["emoji"] == .text("🏃"))

        let upgraded = try old.upgradedToV2()
        let pass = try await upgraded.sync()
        #expect(pass.pushed == 0)
        let shown = try #require(try await upgraded.store.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Habit.self, id: habit.id) })
        #expect(shown.emoji == "🏃" && shown.name == "Morning run")
        clock.advance(10)
        var recoloured = shown
        recoloured.color = "#00FF00"
        try await upgraded.store.write { [recoloured] in try $0.save(recoloured) }
        try await upgraded.sync()
        try await new.sync()
        for device in [upgraded, new] {
            let row = try #require(try await device.store.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Habit.self, id: habit.id) })
            #expect(row.emoji == "🏃" && row.name == "Morning run" && row.color == "#00FF00")
            #expect(try await MixedBuilds.differences(device, server).isEmpty)
        }
    }

    @Test func anUpgradeShowsTheNewColumnOfAVersionTable() async throws {
        let clock = ManualClock()
        let old = try TestDevice("old", user: user, transport: server, schema: MixedBuilds.v1, clock: clock)
        let new = try TestDevice("new", user: user, transport: server, schema: MixedBuilds.v2, clock: clock)
        let note = try await old.store.write { try $0.save(HopeSyncUpgradeSchemaV1.Note(title: "Groceries")) }
        try await old.sync()
        try await new.sync()
        var pinned = try #require(try await new.store.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Note.self, id: note.id) })
        pinned.pinned = true
        try await new.store.write { [pinned] in try $0.save(pinned) }
        try await new.sync()
        try await old.sync()
        var retitled = try #require(try await old.store.read { try $0.fetchOne(HopeSyncUpgradeSchemaV1.Note.self, id: note.id) })
        retitled.title = "Groceries for Sunday"
        try await old.store.write { [retitled] in try $0.save(retitled) }
        try await old.sync()
        #expect(await server.rows(of: "notes")[note.id.uuidString.lowercased()]?["pinned"] == .bool(true))

        let upgraded = try old.upgradedToV2()
        try await upgraded.sync()
        let shown = try #require(try await upgraded.store.read { try $0.fetchOne(HopeSyncUpgradeSchemaV2.Note.self, id: note.id) })
        #expect(shown.pinned == true && shown.title == "Groceries for Sunday")
        #expect(try await MixedBuilds.differences(upgraded, server).isEmpty)
    }
}
