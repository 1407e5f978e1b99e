import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import Testing

/// Devices pulling through the generated pull function on PostgreSQL (the libpq transport calls
/// it as PostgREST's GET /rpc/sync_pull would), and through the tables when the server's SQL
/// predates it.
@Suite struct PullFunctionEndToEndTests {
    let user = UUID()

    @Test func anIdlePassIsOneRequestAndTheNextWriteStillArrives() async throws {
        let server = try TestServer()
        let phone = try Device("phone", user: user, transport: server.transport)
        let counting = CountingTransport(server.transport)
        let desk = try Device("desk", user: user, transport: counting)
        try await phone.store.write { try $0.save(Activity(name: "Run")) }
        try await phone.sync()
        try await desk.sync()
        #expect(try desk.rows(of: Activity.table).count == 1)
        let before = counting.functionPulls
        try await desk.sync()
        #expect(counting.functionPulls - before == 1, "one request for every table")
        #expect(counting.tablePulls == 0)
        #expect(await desk.engine.status.serverProtocol == .functions)
        try await phone.store.write { try $0.save(Activity(name: "Swim")) }
        try await phone.sync()
        try await desk.sync()
        #expect(try desk.rows(of: Activity.table).count == 2)
    }

    /// A restore or backfill that bypasses the triggers (session_replication_role = replica)
    /// writes no mark, so a device whose pull was idle does not see it; once the script calls
    /// `public.sync_mark_written` for the owner (as the service role), the device's next pass
    /// reads the row.
    @Test func aWriteThatBypassedTheTriggersArrivesOnceItsOwnerIsMarked() async throws {
        let server = try TestServer()
        let desk = try Device("desk", user: user, transport: server.transport)
        try await desk.store.write { try $0.save(Activity(name: "Run")) }
        try await desk.sync()
        // The owner's marks pruned, as writes prune them in batches (here at once, so that no
        // transaction elsewhere in the cluster holding the desk's mark back keeps one in reach).
        try server.database.connect().execute("delete from public.sync_marks where user_id = '\(user.uuidString.lowercased())'")
        let restored = UUID()
        let stamp = WriteStamp(ms: ClockTests.now, deviceID: "restore").text
        try server.database.connect().execute(
            script: """
                begin;
                set local session_replication_role = replica;
                insert into public.activities (id, user_id, name, updated_ms, device_id, column_stamps, server_seq)
                values ('\(restored.uuidString.lowercased())', '\(user.uuidString.lowercased())', 'Restored', \(ClockTests.now), 'restore',
                  jsonb_build_object('name', '\(stamp)'), nextval('public.sync_server_seq'));
                commit;
                """)
        try await desk.sync()
        #expect(try desk.rows(of: Activity.table)[restored.uuidString.lowercased()] == nil, "unmarked: the idle answer hides it")

        try server.database.connect().execute(
            script: """
                begin;
                set local role service_role;
                select public.sync_mark_written('\(user.uuidString.lowercased())');
                commit;
                """)
        try await desk.sync()
        #expect(try desk.rows(of: Activity.table)[restored.uuidString.lowercased()]?["name"] == .text("Restored"))
    }

    @Test func aServerWithoutThePullFunctionIsPulledTableByTableAndSaysSo() async throws {
        let server = try TestServer()
        try server.database.connect().execute("drop function public.sync_pull(jsonb, bigint, integer)")
        let phone = try Device("phone", user: user, transport: server.transport)
        let counting = CountingTransport(server.transport)
        let desk = try Device("desk", user: user, transport: counting)
        try await phone.store.write { try $0.save(Activity(name: "Run")) }
        try await phone.sync()
        #expect(await phone.engine.status.serverProtocol == .tables)
        try await desk.sync()
        #expect(try desk.rows(of: Activity.table).count == 1)
        #expect(counting.functionPulls == 1 && counting.tablePulls == GeneratedSchema.tables.count)
        let status = await desk.engine.status
        #expect(status.serverProtocol == .tables && status.lastError == nil)
        // Until the engine tries again, it goes straight to the tables.
        try await desk.sync()
        #expect(counting.functionPulls == 1)
        // Once the newer SQL is pasted, a device that tries the function uses it.
        try server.applySchema()
        let laptop = try Device("laptop", user: user, transport: server.transport)
        try await laptop.sync()
        #expect(try laptop.rows(of: Activity.table).count == 1)
        #expect(await laptop.engine.status.serverProtocol == .functions)
    }

    /// A device of a build from before the function, beside one that uses it, for the same user.
    @Test func aTableByTableDeviceAndAFunctionDeviceSeeTheSameRows() async throws {
        let server = try TestServer()
        let old = try Device("old", user: user, transport: server.transport, schema: Device.tablesOnly)
        let new = try Device("new", user: user, transport: server.transport)
        try await old.store.write { try $0.save(Activity(name: "From old")) }
        try await new.store.write { try $0.save(Activity(name: "From new")) }
        try await old.sync()
        try await new.sync()
        try await old.sync()
        #expect(try old.rows(of: Activity.table).keys.sorted() == new.rows(of: Activity.table).keys.sorted())
        #expect(try new.rows(of: Activity.table).count == 2)
        #expect(await old.engine.status.serverProtocol == .tables)
        #expect(await new.engine.status.serverProtocol == .functions)
    }
}
