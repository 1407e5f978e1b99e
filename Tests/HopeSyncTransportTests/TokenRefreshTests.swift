import Foundation
import Testing

@_spi(Transport) @testable import HopeSync

/// A token PostgREST refuses (401 PGRST301 / PGRST303) is replaced once, never in a loop.
struct TokenRefreshTests {
    static let expired = #"{"code":"PGRST303","details":null,"hint":null,"message":"JWT expired"}"#
    static let invalid = #"{"code":"PGRST301","details":null,"hint":null,"message":"JWT could not be decoded"}"#

    private func upsert(_ transport: PostgRESTTransport) async throws(SyncError) {
        try await transport.upsert(
            [ColumnValues(["id": .text("5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c")])], into: Fixtures.sessions, as: Fixtures.user)
    }

    @Test(arguments: [expired, invalid])
    func aRefusedTokenIsReplacedAndTheRequestSentOnceMore(refusal: String) async throws {
        let server = StubServer(answers: [.respond(status: 401, body: refusal), .respond(status: 201, body: "")])
        let provider = Fixtures.TokenProvider(["token-2"])
        let transport = Fixtures.transport(server) { provider.next() }

        try await upsert(transport)

        #expect(provider.callCount == 1)
        #expect(server.requests.map(\.bearerToken) == ["token-of-user-1", "token-2"])
        // Identical requests apart from the token.
        #expect(server.requests[0].body == server.requests[1].body)
        #expect(server.requests[0].url == server.requests[1].url)
    }

    @Test func theFreshTokenStandsInForTheRefusedOneAfterwards() async throws {
        let server = StubServer(answers: [
            .respond(status: 401, body: Self.expired), .respond(status: 201, body: ""),
            .respond(status: 201, body: ""), .respond(status: 200, body: "[]"),
        ])
        let provider = Fixtures.TokenProvider(["token-2"])
        let transport = Fixtures.transport(server) { provider.next() }

        try await upsert(transport)
        try await upsert(transport)
        // Newer credentials from the engine win over the remembered token.
        let newer = Credentials(userID: Fixtures.userID, accessToken: "token-3")
        _ = try await transport.pull(Fixtures.sessions, after: 0, limit: 1, as: newer)

        #expect(server.requests.map(\.bearerToken) == ["token-of-user-1", "token-2", "token-2", "token-3"])
        #expect(provider.callCount == 1)
    }

    @Test func aSecondRefusalIsTheAnswerNotAnotherRefresh() async throws {
        let server = StubServer(answers: [.respond(status: 401, body: Self.expired)])
        let provider = Fixtures.TokenProvider(["token-2", "token-3", "token-4"])
        let transport = Fixtures.transport(server) { provider.next() }

        let error = await syncError { () async throws(SyncError) in try await upsert(transport) }

        #expect(server.requests.count == 2)
        #expect(provider.callCount == 1)
        #expect(error?.code == .server)
        #expect(error?.serverError?.status == 401)
        #expect(error?.serverError?.code == "PGRST303")
    }

    @Test func theSameTokenAgainIsNotResent() async throws {
        let server = StubServer(answers: [.respond(status: 401, body: Self.expired)])
        let provider = Fixtures.TokenProvider(["token-of-user-1"])
        let error = await syncError { () async throws(SyncError) in try await upsert(Fixtures.transport(server) { provider.next() }) }

        #expect(server.requests.count == 1)
        #expect(error?.serverError?.code == "PGRST303")
    }

    @Test func nobodySignedInIsAnAccessTokenError() async throws {
        let server = StubServer(answers: [.respond(status: 401, body: Self.expired)])
        let error = await syncError { () async throws(SyncError) in try await upsert(Fixtures.transport(server) { nil }) }

        #expect(server.requests.count == 1)
        #expect(error?.code == .accessToken)
    }

    @Test func aFailingProviderIsAnAccessTokenError() async throws {
        struct SignInFailed: Error {}
        let server = StubServer(answers: [.respond(status: 401, body: Self.invalid)])
        let error = await syncError { () async throws(SyncError) in try await upsert(Fixtures.transport(server) { throw SignInFailed() }) }

        #expect(error?.code == .accessToken)
        #expect(error?.message == "The access token provider failed (SignInFailed)")
    }

    @Test func credentialsNeverShowTheirToken() {
        var dumped = ""
        dump(Fixtures.user, to: &dumped)
        for text in [String(describing: Fixtures.user), String(reflecting: Fixtures.user), "\(Fixtures.user)", dumped] {
            #expect(!text.contains("token-of-user-1"))
            #expect(text.contains(Fixtures.userID.uuidString))
        }
    }

    /// The gateway's 401 is about the anon key, and the anon role's 42501 about a policy: a new
    /// token would change neither.
    @Test(arguments: [
        #"{"message":"Invalid API key"}"#,
        #"{"code":"42501","details":null,"hint":null,"message":"permission denied for table sessions"}"#,
    ])
    func otherUnauthorizedAnswersAreNotRefreshed(body: String) async throws {
        let server = StubServer(answers: [.respond(status: 401, body: body), .respond(status: 201, body: "")])
        let provider = Fixtures.TokenProvider(["token-2"])
        let error = await syncError { () async throws(SyncError) in try await upsert(Fixtures.transport(server) { provider.next() }) }

        #expect(provider.callCount == 0)
        #expect(server.requests.count == 1)
        #expect(error?.serverError?.status == 401)
    }
}
