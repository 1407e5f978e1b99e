import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncTestSupport
import Testing

/// Devices whose clocks are wrong, against PostgreSQL's own clock and the triggers' rule that a
/// claim may be at most a day past it: no edit is lost, nothing is refused, and every device ends
/// with the server's rows.
@Suite struct ClockTests {
    let user = UUID()
    static let now = Int64(Date().timeIntervalSince1970 * 1_000)
    static let day: Int64 = 86_400_000

    /// A device whose clock reset (to 1970, 2000, or before 1970) pulls a row, edits it and
    /// pushes: its edit is made after it saw the row, so it wins there and everywhere.
    @Test(arguments: [0, 946_684_800_000, -1_000_000_000_000] as [Int64])
    func anEditOnADeviceWhoseClockIsFarBehindWinsOverTheRowItSaw(wallClock: Int64) async throws {
        let server = try TestServer()
        let desk = try Device("desk", user: user, transport: server.transport)
        let work = try await desk.store.write { try $0.save(Activity(name: "Work")) }
        try await desk.sync()

        let phone = try Device("phone", user: user, transport: server.transport, clock: ManualClock(wallClock))
        try await phone.sync()
        try await phone.store.write { tx in
            var activity = try #require(try tx.fetchOne(Activity.self, id: work.id))
            activity.name = "Deep work"
            try tx.save(activity)
        }
        try await phone.sync()
        try await desk.sync()

        let key = work.id.uuidString.lowercased()
        #expect(try await server.rows(of: Activity.table, for: user)[key]?["name"] == .text("Deep work"))
        #expect(try phone.dirtyCount() == 0)
        #expect(try await phone.rows(of: Activity.table) == server.rows(of: Activity.table, for: user))
        #expect(try await desk.rows(of: Activity.table) == server.rows(of: Activity.table, for: user))
    }

    /// Whatever the server made of a pushed row (here a trigger of the project's own that
    /// rewrites a value), the device ends with the server's row, never showing as synced a value
    /// the server does not hold.
    @Test func aPushedRowTheServerChangedEndsAsTheServerHoldsIt() async throws {
        let server = try TestServer()
        try server.database.connect().execute(
            script: """
                create function public.shout() returns trigger language plpgsql as $$
                begin new.name := upper(new.name); return new; end $$;
                create trigger zz_shout before insert or update on public.activities for each row execute function public.shout();
                """)
        let phone = try Device("phone", user: user, transport: server.transport)
        let work = try await phone.store.write { try $0.save(Activity(name: "work")) }
        try await phone.sync()

        #expect(try await phone.store.read { try $0.fetchOne(Activity.self, id: work.id) }?.name == "WORK")
        #expect(try phone.dirtyCount() == 0)
        #expect(try await phone.rows(of: Activity.table) == server.rows(of: Activity.table, for: user))
    }

    /// A row stamped far past the server's clock (written before the server had its limit, or
    /// while its clock was ahead): an edit of it cannot win there, so the device ends with the
    /// server's row; and no write of the device is refused for what it pulled, even on a device
    /// whose clock runs ahead of the server's.
    @Test(arguments: [0, 2 * 3_600_000] as [Int64])
    func aFarFutureStampPulledNeverGetsADevicesWritesRefused(deviceAheadMs: Int64) async throws {
        let server = try TestServer()
        let future = UUID()
        let stamp = WriteStamp(ms: Self.now + 30 * Self.day, deviceID: "elsewhere").text
        try server.database.connect().execute(
            script: """
                begin;
                set local session_replication_role = replica;
                insert into public.activities (id, user_id, name, updated_ms, device_id, column_stamps, server_seq)
                values ('\(future.uuidString.lowercased())', '\(user.uuidString.lowercased())', 'From the future',
                  \(Self.now + 30 * Self.day), 'elsewhere',
                  jsonb_build_object('name', '\(stamp)', 'color', '\(stamp)', 'archived', '\(stamp)', 'sort_order', '\(stamp)',
                    'metadata', '\(stamp)', 'deleted_ms', '\(stamp)'),
                  nextval('public.sync_server_seq'));
                commit;
                """)
        let phone = try Device("phone", user: user, transport: server.transport, clock: ManualClock(Self.now + deviceAheadMs))
        try await phone.sync()
        try await phone.store.write { tx in
            var activity = try #require(try tx.fetchOne(Activity.self, id: future))
            activity.name = "Edited"
            try tx.save(activity)
            try tx.save(Activity(name: "New"))
        }
        let report = try await phone.sync()

        #expect(report.rejected == 0)
        #expect(try await phone.store.read { try $0.rejectedMutations() }.isEmpty)
        let held = try await server.rows(of: Activity.table, for: user)
        #expect(held.values.contains { $0["name"] == .text("New") })
        #expect(held[future.uuidString.lowercased()]?["name"] == .text("From the future"))
        #expect(try phone.dirtyCount() == 0)
        #expect(try phone.rows(of: Activity.table) == held)
    }

    /// A device three days ahead that writes before it ever heard from the server: the server
    /// refuses its claims once (22008); the pull tells the device the server's time, and the
    /// writes go again as made now. Nothing is lost, nothing waits on the rejected list.
    @Test func aDeviceFarAheadThatWroteOfflineLandsItsWrites() async throws {
        let server = try TestServer()
        let phone = try Device("phone", user: user, transport: server.transport, clock: ManualClock(Self.now + 3 * Self.day))
        let work = try await phone.store.write { try $0.save(Activity(name: "Written offline")) }
        try await phone.sync()

        #expect(try await phone.store.read { try $0.rejectedMutations() }.isEmpty)
        #expect(try await server.rows(of: Activity.table, for: user)[work.id.uuidString.lowercased()]?["name"] == .text("Written offline"))
        #expect(try phone.dirtyCount() == 0)
        #expect(try await phone.rows(of: Activity.table) == server.rows(of: Activity.table, for: user))

        // Its later writes are stamped by the server's clock: accepted at once.
        try await phone.store.write { tx in
            var activity = try #require(try tx.fetchOne(Activity.self, id: work.id))
            activity.name = "Written later"
            try tx.save(activity)
        }
        try await phone.sync()
        #expect(try await server.rows(of: Activity.table, for: user)[work.id.uuidString.lowercased()]?["name"] == .text("Written later"))
    }
}

/// A device whose clock is a year ahead, and which has not heard the server's time since: its
/// offline write is refused once (22008), made again by the clock corrected with the server's
/// time, and lands at the server's time, not at the edge of what the server takes; a device
/// that pulls it keeps stamping its own writes at the real time.
@Suite struct ClockYearAheadTests {
    let user = UUID()
    static let year: Int64 = 365 * 86_400_000
    static let minute: Int64 = 60_000

    /// Never heard the server (a new install offline), or heard it before its clock was moved
    /// a year ahead (its stored offset stale).
    @Test(arguments: [false, true])
    func aWriteOfADeviceAYearAheadLandsAtTheServersTime(syncedBeforeTheJump: Bool) async throws {
        let server = try TestServer()
        let clock = ManualClock(ClockTests.now + (syncedBeforeTheJump ? 0 : Self.year))
        let phone = try Device("phone", user: user, transport: server.transport, clock: clock)
        if syncedBeforeTheJump {
            try await phone.sync()
            clock.advance(Self.year)
        }
        let written = try await phone.store.write { try $0.save(Activity(name: "Written a year ahead")) }
        try await phone.sync()

        #expect(try await phone.store.read { try $0.rejectedMutations() }.isEmpty)
        #expect(try phone.dirtyCount() == 0)
        let landed = try #require(try await server.rows(of: Activity.table, for: user)[written.id.uuidString.lowercased()])
        #expect(landed["name"] == .text("Written a year ahead"))
        let stamp = try #require(landed[ReservedColumn.updatedMs]?.int)
        let offMs = stamp - (try server.clockMs())
        #expect(abs(offMs) < Self.minute, "landed \(offMs / Self.minute) min off the server's clock")

        // A device with a correct clock pulls it, and goes on stamping at the real time.
        let desk = try Device("desk", user: user, transport: server.transport, clock: ManualClock(ClockTests.now))
        try await desk.sync()
        let own = try await desk.store.write { try $0.save(Activity(name: "Written on the desk")) }
        try await desk.sync()
        let deskStamp = try #require(
            try await server.rows(of: Activity.table, for: user)[own.id.uuidString.lowercased()]?[ReservedColumn.updatedMs]?.int)
        let deskOffMs = deskStamp - (try server.clockMs())
        #expect(abs(deskOffMs) < Self.minute, "the desk stamped \(deskOffMs / Self.minute) min off the server's clock")
    }
}
