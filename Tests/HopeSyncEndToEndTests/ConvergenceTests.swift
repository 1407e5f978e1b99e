import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import Testing

/// Devices (separate SQLite files) syncing through the PostgreSQL transport into the real
/// generated SQL: one user's devices converge; another user's device sees and changes nothing
/// of theirs.
@Suite struct ConvergenceTests {
    @Test(arguments: [2, 3])
    func devicesOfOneUserConverge(count: Int) async throws {
        let server = try TestServer()
        let user = UUID()
        let devices = try (0..<count).map {
            try Device("device-\($0)", user: user, transport: server.transport, clock: ManualClock(ManualClock.anHourAgo + Int64($0) * 7))
        }
        // Offline, each device writes a row of every table but task_photos.
        var activities: [Activity] = []
        for (index, device) in devices.enumerated() {
            let activity = try await device.store.write {
                try $0.save(Activity(name: "Activity \(index)", metadata: #"{"b": \#(index), "a": [1, "x"]}"#))
            }
            activities.append(activity)
            try await device.store.write { writer in
                _ = try writer.save(
                    Session(
                        activityId: activity.id, startedMs: 1_000 * Int64(index), endedMs: 1_000 * Int64(index) + 500, note: "from \(index)"
                    ))
                _ = try writer.save(TaskItem(title: "Task \(index)", dueAt: SyncTimestamp("2026-10-18T13:00:27.486123+00:00")))
                _ = try writer.save(TaskList(name: "List \(index)", icon: Data([0, UInt8(index), 255])))
            }
        }
        for device in devices { try await device.sync() }

        // Then two devices edit the same activity (the later edit wins everywhere) and one
        // deletes another device's session.
        let first = devices[0]
        let last = devices[count - 1]
        let shared = activities[0].id
        first.clock.advance(10)
        last.clock.advance(20)
        try await first.store.write { writer in
            var activity = try #require(try writer.fetchOne(Activity.self, id: shared))
            activity.name = "Renamed on the first device"
            _ = try writer.save(activity)
        }
        try await last.store.write { writer in
            var activity = try #require(try writer.fetchOne(Activity.self, id: shared))
            activity.name = "Renamed on the last device"
            _ = try writer.save(activity)
        }
        let deletedSession = try #require(try await first.store.read { try $0.fetchAll(Session.self) }.first { $0.note == "from 0" })
        try await devices[1].store.write { _ = try $0.delete(Session.self, id: deletedSession.id) }
        for _ in 0..<2 {
            for device in devices { try await device.sync() }
        }

        // Task photos need Storage, which this transport has none of: FileEndToEndTests sync them.
        for table in GeneratedSchema.tables where table.name != TaskPhoto.table.name {
            let serverRows = try await server.rows(of: table, for: user)
            #expect(serverRows.count == count, "\(table.name) on the server")
            for device in devices {
                let local = try device.rows(of: table)
                #expect(
                    local == serverRows,
                    "\(table.name) on \(device.name): \(local.filter { serverRows[$0.key] != $0.value }.map { "\($0.value) server \(String(describing: serverRows[$0.key]))" })"
                )
                #expect(try device.dirtyCount() == 0)
            }
        }
        let renamed = try await server.rows(of: Activity.table, for: user)[activities[0].id.uuidString.lowercased()]
        #expect(renamed?["name"] == .text("Renamed on the last device"))
        let deleted = try await server.rows(of: Session.table, for: user)[deletedSession.id.uuidString.lowercased()]
        #expect(deleted?["deleted_ms"]?.int != nil)
    }

    @Test func aSecondUserNeitherReceivesNorOverwritesTheFirstUsersRows() async throws {
        let server = try TestServer()
        let alice = UUID()
        let bob = UUID()
        let alicesPhone = try Device("alice-phone", user: alice, transport: server.transport)
        let bobsPhone = try Device("bob-phone", user: bob, transport: server.transport)
        let alicesActivity = try await alicesPhone.store.write { try $0.save(Activity(name: "Alice's")) }
        try await alicesPhone.store.write { _ = try $0.save(Session(activityId: alicesActivity.id, startedMs: 1, endedMs: 2)) }
        try await alicesPhone.sync()

        // Bob's device holds a row under Alice's key (forged, or a colliding id) beside its own.
        try await bobsPhone.store.write { _ = try $0.save(Activity(id: alicesActivity.id, name: "Bob was here", updatedMs: .max / 2)) }
        let bobsActivity = try await bobsPhone.store.write { try $0.save(Activity(name: "Bob's")) }
        let report = try await bobsPhone.sync()

        #expect(report.pushed == 1 && report.rejected == 1)
        let rejected = try await bobsPhone.store.read { try $0.rejectedMutations() }
        #expect(rejected.map(\.rowID) == [alicesActivity.id])
        #expect(rejected.first?.serverError?.code == "42501" && rejected.first?.serverError?.status == 403)

        let alicesRows = try await server.rows(of: Activity.table, for: alice)
        #expect(alicesRows.count == 1 && alicesRows[alicesActivity.id.uuidString.lowercased()]?["name"] == .text("Alice's"))
        let bobsRows = try await server.rows(of: Activity.table, for: bob)
        #expect(Set(bobsRows.keys) == [bobsActivity.id.uuidString.lowercased()])
        // Nothing of Alice's reached Bob's device: every row there is his own.
        let bobsUser = SyncValue.text(bob.uuidString.lowercased())
        for table in GeneratedSchema.tables {
            #expect(try bobsPhone.rows(of: table).values.allSatisfy { $0["user_id"] == bobsUser }, "\(table.name)")
        }
        #expect(try bobsPhone.rows(of: Session.table).isEmpty)
        #expect(try await bobsPhone.store.read { try $0.fetchOne(Activity.self, id: alicesActivity.id) }?.name == "Bob was here")
    }
}
