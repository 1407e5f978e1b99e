import Foundation
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// The pull function over HTTP: a GET (so a read replica's endpoint can answer it), byte for
/// byte, and its answer read.
/// On the golden requests' host, so inside their serialized suite.
extension RequestGoldenTests {
    @Suite struct FunctionRequestTests {
        private func send(
            _ answer: StubServer.Answer, _ call: (PostgRESTTransport) async throws(SyncError) -> Void
        ) async throws -> RecordedRequest {
            let server = StubServer(host: RequestGoldenTests.host, answers: [answer])
            try await call(Fixtures.transport(server))
            return try #require(server.requests.first)
        }

        static let answer = """
            {"mark" : 77, "tables" : {"sessions" : {"rows" : [{"id":"5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c","user_id":"6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7",\
            "kind":"work","note":null,"started_ms":1792328400000,"ended_ms":null,"updated_ms":9007199254740993,"deleted_ms":null,\
            "device_id":"device-a","server_seq":42,"added_later":1}], "more" : false}, "tasks" : {"rows" : [], "more" : false}}}
            """

        @Test func thePullFunctionIsAGetWithEveryCursorAndTheMark() async throws {
            let request = try await send(.respond(status: 200, body: Self.answer)) { transport throws(SyncError) in
                let answer = try await transport.pull(
                    [TableCursor(Fixtures.sessions, after: 41), TableCursor(Fixtures.tasks, after: 0)], since: 70, limit: 500,
                    function: "sync_pull", as: Fixtures.user)
                #expect(answer.mark == 77)
                #expect(answer.pages["sessions"]?.rows.count == 1)
                #expect(answer.pages["sessions"]?.rows.first?["updated_ms"] == .int(9_007_199_254_740_993))
                #expect(answer.pages["sessions"]?.lastServerSeq == 42)
                #expect(answer.pages["tasks"]?.receivedCount == 0)
                #expect(answer.drifted.isEmpty)
            }
            try expectGolden(request.goldenText, named: "pull-function")
        }

        @Test func aTableTheAnswerLacksOrAColumnItsRowsLackIsSchemaDrift() throws {
            let answer = try FunctionCoding.pulledTables(
                Data(Self.answer.replacingOccurrences(of: #""kind":"work","#, with: "").utf8),
                asked: [TableCursor(Fixtures.sessions, after: 0), TableCursor(Fixtures.attachments, after: 0)], since: nil,
                serverTimeMs: nil)
            #expect(answer.pages["sessions"] == nil)
            #expect(answer.drifted["sessions"]?.compactMap(SchemaDrift.init) == [SchemaDrift(table: "sessions", column: "kind")])
            #expect(answer.drifted["attachments"]?.compactMap(SchemaDrift.init) == [SchemaDrift(table: "public.attachments", column: nil)])
            let idle = try FunctionCoding.pulledTables(
                Data(#"{"mark": 77, "tables": {}}"#.utf8), asked: [TableCursor(Fixtures.sessions, after: 0)], since: 77, serverTimeMs: nil)
            #expect(idle.pages.isEmpty && idle.drifted.isEmpty, "the mark alone: nothing changed")
        }

        @Test func aServerWithoutTheFunctionAnswersPGRST202() async throws {
            let body =
                #"{"code":"PGRST202","details":null,"hint":null,"message":"Could not find the function public.sync_pull in the schema cache"}"#
            let server = StubServer(host: RequestGoldenTests.host, answers: [.respond(status: 404, body: body)])
            let error = await #expect(throws: SyncError.self) {
                _ = try await Fixtures.transport(server).pull(
                    [TableCursor(Fixtures.sessions, after: 0)], since: nil, limit: 10, function: "sync_pull", as: Fixtures.user)
            }
            #expect(error?.lacksFunction("sync_pull") == true)
        }
    }
}
