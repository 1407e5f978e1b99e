import Foundation
import Testing

@_spi(Transport) @testable import HopeSync

/// Failures with no answer are the network's; a cancellation is never one.
struct NetworkFailureTests {
    private func pull(_ server: StubServer, timeout: TimeInterval = 30) async -> SyncError? {
        await syncError { () async throws(SyncError) in
            try await Fixtures.transport(server, timeout: timeout).pull(Fixtures.sessions, after: 0, limit: 10, as: Fixtures.user)
        }
    }

    @Test(arguments: [
        URLError.Code.timedOut, .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet,
        .cannotFindHost, .dnsLookupFailed, .secureConnectionFailed, .dataNotAllowed, .badServerResponse,
    ])
    func failuresWithoutAnAnswerAreConnectivity(code: URLError.Code) async throws {
        let error = try #require(await pull(StubServer(answers: [.fail(code)])))
        #expect(error.code == .connectivity)
        #expect(error.isNetworkFailure)
        #expect(error.httpStatus == nil)
        // URLError's own text names the URL; ours never does.
        #expect(!error.message.contains("supabase.test"))
        #expect(!String(describing: error).contains("supabase.test"))
    }

    @Test func aTimeoutIsTheNetworks() async throws {
        let error = try #require(await pull(StubServer(answers: [.fail(.timedOut)])))
        #expect(error == SyncError(.connectivity, "The server did not answer in time"))
        #expect(error.isNetworkFailure)
    }

    /// The transport's own deadline, which holds whatever URLProtocol carries the request.
    @Test func aRequestLeftUnansweredTimesOutAsTheNetworksFailure() async throws {
        let server = StubServer(answers: [.hang])
        let error = try #require(await pull(server, timeout: 0.2))
        #expect(error == SyncError(.connectivity, "The server did not answer in time"))
        #expect(try await server.abandonedRequestsSettled() == 1)
    }

    @Test func aCancelledURLTaskIsACancellationNotANetworkFailure() async throws {
        let error = try #require(await pull(StubServer(answers: [.fail(.cancelled)])))
        #expect(error.code == .cancelled)
        #expect(!error.isNetworkFailure)
    }

    @Test func cancellingTheCallingTaskCancelsTheRequest() async throws {
        let server = StubServer(answers: [.hang])
        let transport = Fixtures.transport(server)
        let call = Task {
            await syncError { () async throws(SyncError) in
                try await transport.pull(Fixtures.sessions, after: 0, limit: 10, as: Fixtures.user)
            }
        }
        while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        call.cancel()

        let error = try #require(await call.value)
        #expect(error.code == .cancelled)
        #expect(!error.isNetworkFailure)
        #expect(try await server.abandonedRequestsSettled() == 1)
    }

    @Test func aTaskCancelledBeforehandSendsNothing() async throws {
        let server = StubServer(answers: [.respond(status: 200, body: "[]")])
        let transport = Fixtures.transport(server)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await syncError { () async throws(SyncError) in
                try await transport.pull(Fixtures.sessions, after: 0, limit: 10, as: Fixtures.user)
            }
        }
        let error = try #require(await call.value)
        #expect(error.code == .cancelled)
        #expect(server.requests.isEmpty)
    }
}
