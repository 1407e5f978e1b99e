import Foundation
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// Every refusal in POSTGREST.md, and bodies that are not PostgREST's, decode into the server's
/// error with its status.
struct ServerErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let status: Int
        let code: String
        let message: String
        var testDescription: String { "\(status) \(code)" }
    }

    static let refusals: [Case] = [
        Case(status: 409, code: "23505", message: #"duplicate key value violates unique constraint "sessions_pkey""#),
        Case(
            status: 409, code: "23503",
            message: #"insert or update on table "sessions" violates foreign key constraint "sessions_user_id_fkey""#),
        Case(status: 403, code: "42501", message: #"new row violates row-level security policy for table "sessions""#),
        Case(status: 401, code: "42501", message: "permission denied for table sessions"),
        Case(status: 400, code: "P0001", message: "Only one session may run at a time"),
        Case(status: 500, code: "40001", message: "could not serialize access due to concurrent update"),
        Case(status: 500, code: "40P01", message: "deadlock detected"),
        Case(status: 500, code: "57014", message: "canceling statement due to statement timeout"),
        Case(status: 503, code: "57P01", message: "terminating connection due to administrator command"),
        Case(status: 400, code: "23502", message: #"null value in column "kind" of relation "sessions" violates not-null constraint"#),
        Case(status: 406, code: "PGRST116", message: "JSON object requested, multiple (or no) rows returned"),
        Case(status: 400, code: "PGRST124", message: "Query result exceeds max-affected preference constraint"),
        Case(status: 400, code: "PGRST102", message: "All object keys must match"),
        Case(
            status: 503, code: "PGRST000",
            message: "Could not connect with the database due to an incorrect db-uri or due to the PostgreSQL service not running."),
        Case(status: 503, code: "PGRST001", message: "Could not connect with the database due to an internal error."),
        Case(status: 503, code: "PGRST002", message: "Could not connect with the database when building the Schema Cache"),
        Case(status: 504, code: "PGRST003", message: "Timed out acquiring connection from connection pool."),
    ]

    private func refusal(status: Int, body: String, headers: [String: String] = [:]) async -> SyncError? {
        let server = StubServer(answers: [.respond(status: status, body: body, headers: headers)])
        return await syncError { () async throws(SyncError) in
            try await Fixtures.transport(server).pull(Fixtures.sessions, after: 0, limit: 10, as: Fixtures.user)
        }
    }

    @Test(arguments: refusals)
    func postgRESTRefusalKeepsStatusCodeMessageDetailsAndHint(_ refusal: Case) async throws {
        let body = #"{"code":"\#(refusal.code)","details":"Key (id) is taken.","hint":null,"message":\#(jsonString(refusal.message))}"#
        let error = try #require(await self.refusal(status: refusal.status, body: body))

        #expect(error.code == .server)
        #expect(
            error.serverError
                == ServerError(
                    status: refusal.status, code: refusal.code, message: refusal.message, details: "Key (id) is taken.", hint: nil
                ))
        #expect(error.httpStatus == refusal.status)
        #expect(!error.isNetworkFailure)
        #expect(error.message == "The server refused a request on sessions (HTTP \(refusal.status), \(refusal.code)): \(refusal.message)")
    }

    @Test func detailsAndHintThatAreJSONAreKeptAsText() async throws {
        let body = #"{"code":"P0001","message":"refused","details":{"row":1,"why":["a"]},"hint":[1,2]}"#
        let error = try #require(await refusal(status: 400, body: body))
        #expect(error.serverError?.details == #"{"row":1,"why":["a"]}"#)
        #expect(error.serverError?.hint == "[1,2]")
    }

    @Test func unknownColumnIsSchemaDriftNamingTableAndColumn() async throws {
        let body =
            #"{"code":"PGRST204","details":null,"hint":null,"message":"Could not find the 'paused_ms' column of 'sessions' in the schema cache"}"#
        let error = try #require(await refusal(status: 400, body: body))
        #expect(error.code == .schemaDrift)
        #expect(error.message == "The server's table sessions has no column paused_ms: apply the migration that adds it")
        #expect(error.serverError?.code == "PGRST204")
        #expect(error.httpStatus == 400)
    }

    @Test(arguments: [
        (
            "42703", 400, "column sessions.paused_ms does not exist",
            "The server's table sessions has no column paused_ms: apply the migration that adds it"
        ),
        (
            "42703", 400, #"column "paused_ms" of relation "sessions" does not exist"#,
            "The server's table sessions has no column paused_ms: apply the migration that adds it"
        ),
        (
            "PGRST205", 404, "Could not find the table 'public.sessions' in the schema cache",
            "The server has no table public.sessions: apply the migration that creates it"
        ),
        (
            "42P01", 404, #"relation "public.sessions" does not exist"#,
            "The server has no table public.sessions: apply the migration that creates it"
        ),
    ])
    func missingColumnsAndTablesAreSchemaDrift(code: String, status: Int, message: String, expected: String) async throws {
        let body = #"{"code":"\#(code)","details":null,"hint":null,"message":\#(jsonString(message))}"#
        let error = try #require(await refusal(status: status, body: body))
        #expect(error.code == .schemaDrift)
        #expect(error.message == expected)
        #expect(error.serverError?.status == status)
    }

    @Test func gatewayShapeKeepsItsMessageAndStatus() async throws {
        let error = try #require(
            await refusal(
                status: 401, body: #"{"message":"Invalid API key","hint":"Double check your Supabase `anon` or `service_role` API key."}"#))
        #expect(error.code == .server)
        #expect(
            error.serverError
                == ServerError(
                    status: 401, code: nil, message: "Invalid API key", details: nil,
                    hint: "Double check your Supabase `anon` or `service_role` API key."
                ))
        #expect(error.message == "The server refused a request on sessions (HTTP 401): Invalid API key")
    }

    @Test func htmlFromAProxyIsSummedUpNotQuoted() async throws {
        let html =
            "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"
        let error = try #require(await refusal(status: 502, body: html, headers: ["Content-Type": "text/html"]))
        #expect(error.code == .server)
        #expect(error.serverError == ServerError(status: 502, code: nil, message: "HTTP 502 with a body that is not JSON"))
        #expect(error.message == "The server refused a request on sessions (HTTP 502): HTTP 502 with a body that is not JSON")
    }

    @Test(arguments: [
        (409, #"{"code":"23505","details":null,"hint":null,"message":"duplicate key va"#, "HTTP 409 with a body that is not JSON"),
        (500, "", "HTTP 500 with an empty body"),
        (503, "null", "HTTP 503 with a body that is not an error object"),
        (500, #"{"code":"XX000"}"#, "HTTP 500 with no message"),
    ])
    func bodiesCutShortOrEmptyStillGiveTheStatus(status: Int, body: String, message: String) async throws {
        let error = try #require(await refusal(status: status, body: body))
        #expect(error.code == .server)
        #expect(error.serverError?.status == status)
        #expect(error.serverError?.message == message)
    }

    @Test func anOverlongMessageIsCut() async throws {
        let error = try #require(await refusal(status: 400, body: #"{"message":"\#(String(repeating: "x", count: 5000))"}"#))
        #expect(error.serverError?.message.count == 500)
    }
}

/// `text` as a JSON string literal.
func jsonString(_ text: String) -> String {
    var output = ""
    JSONValue.writeString(text, to: &output)
    return output
}
