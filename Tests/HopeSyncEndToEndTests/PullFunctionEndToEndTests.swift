import Foundation
import HopeSchema
import HopeSync
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
