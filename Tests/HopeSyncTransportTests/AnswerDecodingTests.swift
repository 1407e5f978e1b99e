import Foundation
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// Successful answers: empty bodies, pulled pages, returned rows.
struct AnswerDecodingTests {
    @Test(arguments: [(201, ""), (200, ""), (200, "[]")])
    func upsertSucceedsOnAnEmptyAnswer(status: Int, body: String) async throws {
        let server = StubServer(answers: [.respond(status: status, body: body)])
        let row = ColumnValues(["id": .text("5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c"), "kind": .text("work")])
        try await Fixtures.transport(server).upsert([row], into: Fixtures.sessions, as: Fixtures.user)
        #expect(server.requests.count == 1)
    }

    /// `return=representation`: the rows as the server's rules left them, and its clock.
    @Test func upsertAnswersWithTheRowsAsTheServerHoldsThemAndItsClock() async throws {
        let body = """
            [{"id":"5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c","user_id":"6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7","kind":"work",\
            "note":"SHOUTED","started_ms":1,"ended_ms":null,"updated_ms":5,"deleted_ms":null,"device_id":"device-a","server_seq":42}]
            """
        let server = StubServer(answers: [.respond(status: 201, body: body, headers: ["Date": "Tue, 01 Dec 2026 15:41:40 GMT"])])
        let row = ColumnValues(["id": .text("5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c"), "kind": .text("work")])
        let answer = try await Fixtures.transport(server).upsert([row], into: Fixtures.sessions, as: Fixtures.user)
        #expect(answer.rows.count == 1)
        #expect(answer.rows.first?["note"] == .text("SHOUTED") && answer.rows.first?["server_seq"] == .int(42))
        #expect(answer.serverTimeMs == 1_796_139_700_000)
    }

    @Test func aPulledPageCarriesTheServersClock() async throws {
        let server = StubServer(answers: [.respond(status: 200, body: "[]", headers: ["Date": "Sun, 06 Nov 1994 08:49:37 GMT"])])
        let page = try await Fixtures.transport(server).pull(Fixtures.sessions, after: 0, limit: 10, as: Fixtures.user)
        #expect(page.serverTimeMs == 784_111_777_000)
    }

    @Test func upsertOfNoRowsSendsNothing() async throws {
        let server = StubServer(answers: [.respond(status: 500, body: "")])
        try await Fixtures.transport(server).upsert([], into: Fixtures.sessions, as: Fixtures.user)
        #expect(server.requests.isEmpty)
    }

    @Test func upsertRefusesRowsWithDifferentColumns() async throws {
        let server = StubServer(answers: [.respond(status: 201, body: "")])
        let rows = [ColumnValues(["id": .text("a"), "kind": .text("work")]), ColumnValues(["id": .text("b"), "note": .null])]
        let error = await syncError { () async throws(SyncError) in
            try await Fixtures.transport(server).upsert(rows, into: Fixtures.sessions, as: Fixtures.user)
        }
        #expect(error?.code == .invalidRequest)
        #expect(server.requests.isEmpty)
    }

    @Test func pullDecodesEveryKindExactly() async throws {
        let body = """
            [{"id":"A11CE000-0000-4000-8000-000000000001","user_id":"6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7",
              "meta":{"size": 12345678901234567890, "b":[1,2.50,"x\\u00e9"], "a":null},
              "thumbnail":"\\\\x007FabFF","ratio":1e-3,"updated_ms":9007199254740993,"device_id":"device-b","server_seq":7},
             {"id":"a11ce000-0000-4000-8000-000000000002","user_id":"6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7",
              "meta":null,"thumbnail":null,"ratio":"-Infinity","updated_ms":-9223372036854775808,"device_id":"d","server_seq":8}]
            """
        let server = StubServer(answers: [.respond(status: 200, body: body)])
        let page = try await Fixtures.transport(server).pull(Fixtures.attachments, after: 6, limit: 100, as: Fixtures.user)

        #expect(page.receivedCount == 2)
        #expect(page.lastServerSeq == 8)
        #expect(page.undecodable.isEmpty)
        let first = try #require(page.rows.first)
        #expect(first.columns == Fixtures.attachments.columnNames)
        #expect(first["id"] == .text("a11ce000-0000-4000-8000-000000000001"))
        #expect(first["meta"] == .text(#"{"a":null,"b":[1,2.50,"xé"],"size":12345678901234567890}"#))
        #expect(first["thumbnail"] == .bytes(Data([0x00, 0x7F, 0xAB, 0xFF])))
        #expect(first["ratio"] == .double(0.001))
        #expect(first["updated_ms"] == .int(9_007_199_254_740_993))
        #expect(first["server_seq"] == .int(7))
        let second = try #require(page.rows.last)
        #expect(second["meta"] == .null)
        #expect(second["ratio"] == .double(-.infinity))
        #expect(second["updated_ms"] == .int(.min))
    }

    @Test func pulledTimestampsAreCanonicalAndTheVersionIsKeptAsSent() async throws {
        let table = TableSchema(
            name: "tasks",
            columns: [
                ColumnSchema("id", .uuid, role: .id),
                ColumnSchema("due_at", .timestamp, nullable: true),
                ColumnSchema("updated_at", .timestamp, role: .version),
                ColumnSchema("server_seq", .int, role: .serverSeq),
            ],
            conflict: .version(.timestamp),
            ordering: .lookback(50)
        )
        // A server whose session is not in UTC writes its offset; the version is compared as sent.
        let body = """
            [{"id":"5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c","due_at":"2026-10-18T15:00:06.48+02:00","updated_at":"2026-10-18T15:00:27.486123+02:00","server_seq":1},
             {"id":"5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6d","due_at":"next tuesday","updated_at":"2026-10-18T13:00:27+00:00","server_seq":2}]
            """
        let server = StubServer(answers: [.respond(status: 200, body: body)])
        let page = try await Fixtures.transport(server).pull(table, after: 0, limit: 100, as: Fixtures.user)
        #expect(page.rows.count == 1)
        #expect(page.rows.first?["due_at"] == .text("2026-10-18T13:00:06.48+00:00"))
        #expect(page.rows.first?["updated_at"] == .text("2026-10-18T15:00:27.486123+02:00"))
        #expect(page.undecodable.first?.reason == "column due_at: expected a timestamp with an offset")
    }

    @Test func pullReportsRowsThatDoNotDecodeAndKeepsTheRest() async throws {
        let good =
            #"{"id":"5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c","user_id":"6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7","kind":"work","note":null,"started_ms":1,"ended_ms":null,"updated_ms":2,"deleted_ms":null,"device_id":"d","server_seq":10}"#
        let unknownKind = good.replacing(#""kind":"work""#, with: #""kind":"meeting""#).replacing(
            "\"server_seq\":10", with: "\"server_seq\":11")
        let textInteger = good.replacing("\"started_ms\":1", with: "\"started_ms\":\"1\"").replacing(
            "\"server_seq\":10", with: "\"server_seq\":12")
        let tooLarge = good.replacing("\"updated_ms\":2", with: "\"updated_ms\":9223372036854775808").replacing(
            "\"server_seq\":10", with: "\"server_seq\":13")
        let missingColumn = good.replacing("\"note\":null,", with: "").replacing("\"server_seq\":10", with: "\"server_seq\":15")
        let noKey = #"{"server_seq":"x"}"#
        let body = "[\(good),\(unknownKind),\(textInteger),\(tooLarge),\(missingColumn),\(noKey),42]"
        let server = StubServer(answers: [.respond(status: 200, body: body)])

        let page = try await Fixtures.transport(server).pull(Fixtures.sessions, after: 9, limit: 7, as: Fixtures.user)

        #expect(page.rows.map { $0["server_seq"] } == [.int(10)])
        #expect(page.receivedCount == 7)
        // The largest sequence number read, even from rows that did not decode.
        #expect(page.lastServerSeq == 15)
        let key = "5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c"
        #expect(
            page.undecodable == [
                UndecodableRow(
                    table: "sessions", key: key, serverSeq: 11, reason: "column kind: 'meeting' is not a value this client knows"),
                UndecodableRow(table: "sessions", key: key, serverSeq: 12, reason: "column started_ms: expected an integer"),
                UndecodableRow(table: "sessions", key: key, serverSeq: 13, reason: "column updated_ms: expected an integer within 64 bits"),
                UndecodableRow(table: "sessions", key: key, serverSeq: 15, reason: "column note: missing"),
                UndecodableRow(table: "sessions", key: nil, serverSeq: nil, reason: "column id: missing"),
                UndecodableRow(table: "sessions", key: nil, serverSeq: nil, reason: "the row is not a JSON object"),
            ])
    }

    @Test func aCutShortPageIsADecodingError() async throws {
        let body = #"[{"id":"5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c","kind":"wo"#
        let server = StubServer(answers: [.respond(status: 200, body: body)])
        let error = await syncError { () async throws(SyncError) in
            try await Fixtures.transport(server).pull(Fixtures.sessions, after: 0, limit: 10, as: Fixtures.user)
        }
        #expect(error?.code == .decoding)
        #expect(error?.message == "The answer for sessions is not JSON (the text ended early at byte \(body.utf8.count))")
    }

    @Test func guardedUpdateReturnsTheRowsThatCameBack() async throws {
        let body =
            #"[{"id":"0B5E2C4A-9D11-4F0E-A1B2-C3D4E5F60042","updated_at":"2026-10-18T13:05:00.000002+00:00","title":"Buy oat milk","done":true}]"#
        let server = StubServer(answers: [.respond(status: 200, body: body), .respond(status: 200, body: "[]")])
        let transport = Fixtures.transport(server)
        func replay() async throws(SyncError) -> [ColumnValues] {
            try await transport.guardedUpdate(
                Fixtures.tasks, id: Fixtures.taskID, baseVersion: "2026-10-18T13:04:00.000001+00:00",
                set: ColumnValues(["title": .text("Buy oat milk"), "done": .bool(true)]),
                extraFilters: [], returning: ["id", "updated_at", "title", "done"], as: Fixtures.user
            )
        }

        #expect(
            try await replay() == [
                ColumnValues([
                    "id": .text("0b5e2c4a-9d11-4f0e-a1b2-c3d4e5f60042"), "updated_at": .text("2026-10-18T13:05:00.000002+00:00"),
                    "title": .text("Buy oat milk"), "done": .bool(true),
                ])
            ])
        #expect(try await replay() == [])
    }

    @Test func fetchReturnsTheRowOrNil() async throws {
        let body =
            #"[{"id":"0b5e2c4a-9d11-4f0e-a1b2-c3d4e5f60042","updated_at":"2026-10-18T13:04:00.000001+00:00","title":"Buy almond milk","done":true}]"#
        let server = StubServer(answers: [.respond(status: 200, body: body), .respond(status: 200, body: "[]")])
        let transport = Fixtures.transport(server)
        let columns = ["id", "updated_at", "title", "done"]

        let row = try await transport.fetch(Fixtures.tasks, id: Fixtures.taskID, columns: columns, as: Fixtures.user)
        #expect(row?["updated_at"] == .text("2026-10-18T13:04:00.000001+00:00"))
        #expect(row?["title"] == .text("Buy almond milk"))
        #expect(try await transport.fetch(Fixtures.tasks, id: Fixtures.taskID, columns: columns, as: Fixtures.user) == nil)
    }

    @Test func aReturnedRowThatDoesNotDecodeFailsTheCall() async throws {
        let body =
            #"[{"id":"0b5e2c4a-9d11-4f0e-a1b2-c3d4e5f60042","updated_at":"2026-10-18T13:04:00.000001+00:00","title":"x","done":"yes"}]"#
        let server = StubServer(answers: [.respond(status: 200, body: body)])
        let error = await syncError { () async throws(SyncError) in
            try await Fixtures.transport(server).fetch(
                Fixtures.tasks, id: Fixtures.taskID, columns: ["id", "updated_at", "title", "done"], as: Fixtures.user)
        }
        #expect(error?.code == .decoding)
        #expect(error?.message == "A row of tasks does not read: column done: expected true or false")
    }
}

/// The `Date` header, which tells the store the server's clock.
@Suite struct HTTPDateTests {
    @Test func readsAnIMFFixdate() {
        #expect(HTTPDate.millisecondsSince1970("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777_000)
        #expect(HTTPDate.millisecondsSince1970("Tue, 01 Dec 2026 15:41:40 GMT") == 1_796_139_700_000)
        #expect(HTTPDate.millisecondsSince1970("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
    }

    @Test func refusesOtherForms() {
        #expect(HTTPDate.millisecondsSince1970("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.millisecondsSince1970("Sun, 06 Nov 1994 08:49:37 UTC") == nil)
        #expect(HTTPDate.millisecondsSince1970("Sun, 06 Xyz 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.millisecondsSince1970("") == nil)
    }
}
