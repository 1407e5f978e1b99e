import Foundation
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// The build's schema version on the wire (decision 0051): every request of a transport the
/// engine made states it, the daily hello is one POST, and the floor's refusal is never the
/// rows' fault.
@Suite(.serialized)
struct SchemaVersionRequestTests {
    static let host = "schemaversion.supabase.co"

    @Test func everyRequestOfAStatingTransportCarriesTheVersion() async throws {
        let server = StubServer(host: Self.host, answers: [.respond(status: 200, body: "[]"), .respond(status: 200, body: "[]")])
        let plain = Fixtures.transport(server)
        _ = try await plain.pull(Fixtures.sessions, after: 0, limit: 10, as: Fixtures.user)
        let stating = try #require(plain.stating(schemaVersion: 16) as? PostgRESTTransport)
        _ = try await stating.pull(Fixtures.sessions, after: 0, limit: 10, as: Fixtures.user)
        #expect(server.requests.map { $0.header("X-Sync-Schema") } == [nil, "16"])
        #expect(plain.configuration.schemaVersion == nil, "stating makes a copy")
    }

    @Test func theHelloPostsTheVersionAndDeviceAndReadsTheFloor() async throws {
        let server = StubServer(
            host: Self.host,
            answers: [.respond(status: 200, body: #"{"oldest_writer": 12}"#), .respond(status: 200, body: #"{"oldest_writer": null}"#)])
        let transport = try #require(Fixtures.transport(server).stating(schemaVersion: 11) as? PostgRESTTransport)
        let refused = try await transport.hello(schemaVersion: 11, deviceID: "phone-1", as: Fixtures.user)
        #expect(refused == ServerHello(oldestWriter: 12))
        #expect(refused?.letsWrite(schemaVersion: 11) == false && refused?.letsWrite(schemaVersion: 12) == true)
        let open = try await transport.hello(schemaVersion: 11, deviceID: "phone-1", as: Fixtures.user)
        #expect(open?.letsWrite(schemaVersion: 0) == true)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.url == "https://\(Self.host)/rest/v1/rpc/sync_hello")
        #expect(String(decoding: request.body ?? Data(), as: UTF8.self) == #"{"device_id":"phone-1","schema_version":11}"#)
        #expect(request.header("X-Sync-Schema") == "11")
    }

    @Test func aServerWithoutTheHelloAnswersNil() async throws {
        let body =
            #"{"code":"PGRST202","message":"Could not find the function public.sync_hello(device_id, schema_version)"#
            + #" in the schema cache","details":null,"hint":null}"#
        let server = StubServer(host: Self.host, answers: [.respond(status: 404, body: body)])
        #expect(try await Fixtures.transport(server).hello(schemaVersion: 3, deviceID: "d", as: Fixtures.user) == nil)
    }

    @Test func theFloorsRefusalIsNeverTheRowsFault() async throws {
        let body =
            #"{"code":"PT426","message":"this build of the app is too old to write: update the app","#
            + #""details":"oldest_writer 9, this build 8","hint":null}"#
        let server = StubServer(host: Self.host, answers: [.respond(status: 426, body: body)])
        let row = ColumnValues([
            "id": .text("5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c"), "user_id": .text(Fixtures.userID.uuidString.lowercased()),
            "kind": .text("work"), "note": .null, "started_ms": .int(1), "ended_ms": .null,
            "updated_ms": .int(2), "deleted_ms": .null, "device_id": .text("device-a"),
        ])
        do {
            try await Fixtures.transport(server).upsert([row], into: Fixtures.sessions, as: Fixtures.user)
            Issue.record("the refusal was not thrown")
        } catch {
            #expect(error.refusesThisBuild)
            #expect(!error.isRowsFault && !error.isRowsServerFailure)
            #expect(error.serverError?.status == 426)
        }
    }
}
