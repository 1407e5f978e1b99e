import Foundation
import Testing

@_spi(Transport) @testable import HopeSync

/// Requests that cannot be sent as written fail before anything reaches the server, and no
/// message carries a token, a filter value or a URL.
struct RequestValidationTests {
    private func replay(
        _ table: TableSchema, _ server: StubServer, set values: ColumnValues = ColumnValues(["title": .text("x")]),
        returning: [String] = ["id", "updated_at"]
    ) async -> SyncError? {
        await syncError { () async throws(SyncError) in
            try await Fixtures.transport(server).guardedUpdate(
                table, id: Fixtures.taskID, baseVersion: Fixtures.versionT1, set: values,
                extraFilters: [Filter("title", .eq, .text("private title"))], returning: returning, as: Fixtures.user
            )
        }
    }

    @Test func guardingATableWithoutAVersionIsAConfigurationError() async {
        let server = StubServer(answers: [.respond(status: 200, body: "[]")])
        #expect(await replay(Fixtures.sessions, server, set: ColumnValues(["note": .null]))?.code == .configuration)
        #expect(server.requests.isEmpty)
    }

    @Test func unknownColumnsAreRefusedBeforeSending() async {
        let server = StubServer(answers: [.respond(status: 200, body: "[]")])
        #expect(await replay(Fixtures.tasks, server, returning: ["id", "colour"])?.message == "Table tasks has no column colour")
        #expect(await replay(Fixtures.tasks, server, set: ColumnValues(["colour": .text("red")]))?.code == .invalidRequest)
        #expect(await replay(Fixtures.tasks, server, set: ColumnValues(columns: [], values: []))?.code == .invalidRequest)
        #expect(server.requests.isEmpty)
    }

    @Test func aJSONColumnHoldingTextThatIsNotJSONIsAnEncodingError() async {
        let server = StubServer(answers: [.respond(status: 201, body: "")])
        let row = ColumnValues(["id": .text("a11ce000-0000-4000-8000-000000000001"), "meta": .text("{not json")])
        let error = await syncError { () async throws(SyncError) in
            try await Fixtures.transport(server).upsert([row], into: Fixtures.attachments, as: Fixtures.user)
        }
        #expect(error?.code == .encoding)
        #expect(error?.message == "Column attachments.meta cannot be sent: its text is not JSON (expected a member name at byte 1)")
        #expect(server.requests.isEmpty)
    }

    @Test func aPullNeedsAPositiveLimit() async {
        let server = StubServer(answers: [.respond(status: 200, body: "[]")])
        let error = await syncError { () async throws(SyncError) in
            try await Fixtures.transport(server).pull(Fixtures.sessions, after: 0, limit: 0, as: Fixtures.user)
        }
        #expect(error?.code == .invalidRequest)
        #expect(server.requests.isEmpty)
    }

    @Test func fetchingNoNamedColumnsSelectsEveryColumnByName() async throws {
        let server = StubServer(answers: [.respond(status: 200, body: "[]")])
        _ = try await Fixtures.transport(server).fetch(Fixtures.tasks, id: Fixtures.taskID, columns: [], as: Fixtures.user)
        #expect(try #require(server.requests.first).url.hasSuffix("&select=id,user_id,title,done,notes,updated_at,server_seq"))
    }

    @Test func refusalsNeverCarryTheTokenTheFiltersOrTheURL() async throws {
        let answers: [StubServer.Answer] = [
            .respond(
                status: 409,
                body:
                    #"{"code":"23505","details":"Key (id)=(x) already exists.","hint":null,"message":"duplicate key value violates unique constraint \"tasks_pkey\""}"#
            ),
            .respond(status: 502, body: "<html><body>Bad gateway for /rest/v1/tasks?title=eq.private%20title</body></html>"),
            .fail(.networkConnectionLost),
        ]
        for answer in answers {
            let error = try #require(await replay(Fixtures.tasks, StubServer(answers: [answer])))
            for text in [error.message, String(describing: error), String(reflecting: error), error.localizedDescription] {
                for secret in ["token-of-user-1", "private", "2026-10-18", "supabase", "rest/v1", Fixtures.anonKey] {
                    #expect(!text.contains(secret), "\(secret) in \(text)")
                }
            }
        }
    }
}
