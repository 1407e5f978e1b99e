import Foundation
import HopeSync
import HopeSyncTestSupport

/// An auth source the test drives: who is signed in, their token, and what a forced refresh
/// gives.
final class ScriptedAuth: SyncAuthSource {
    struct State {
        var user: UUID?
        var token = "token-1"
        var refreshedTokens: [String] = []
        var refreshCount = 0
        var followers: [UUID: AsyncStream<UUID?>.Continuation] = [:]
    }

    let state = Locked(State())

    init(_ user: UUID? = nil) {
        state.withLock { $0.user = user }
    }

    var users: AsyncStream<UUID?> {
        let (stream, continuation) = AsyncStream.makeStream(of: UUID?.self)
        let id = UUID()
        continuation.onTermination = { [state] _ in state.withLock { _ = $0.followers.removeValue(forKey: id) } }
        state.withLock { state in
            state.followers[id] = continuation
            continuation.yield(state.user)
        }
        return stream
    }

    func signIn(_ user: UUID?) {
        state.withLock { state in
            state.user = user
            for follower in state.followers.values { follower.yield(user) }
        }
    }

    func signOut() { signIn(nil) }

    func accessToken() async throws -> String {
        try state.withLock { state in
            guard state.user != nil else { throw CancellationError() }
            return state.token
        }
    }

    func refreshedAccessToken() async throws -> String {
        state.withLock { state in
            state.refreshCount += 1
            if !state.refreshedTokens.isEmpty { state.token = state.refreshedTokens.removeFirst() }
            return state.token
        }
    }

    var refreshCount: Int { state.value.refreshCount }
}

/// Lets through only requests signed with `accepted`; a refused token is replaced once through
/// the connection's tokens, as the Supabase transports do.
struct TokenCheckingTransport: ForwardingTransport {
    let forwardee: any SyncTransport
    let tokens: SyncClient.Tokens
    let accepted: String

    private func admit(_ user: Credentials) async throws(SyncError) -> Credentials {
        if user.accessToken == accepted { return user }
        let fresh = try? await tokens.refreshed()
        guard fresh == accepted else { throw SyncError(.accessToken, "The server refused the access token") }
        return Credentials(userID: user.userID, accessToken: accepted)
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try await forwardee.upsert(rows, into: table, as: try await admit(user))
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        try await forwardee.pull(table, after: cursor, limit: limit, as: try await admit(user))
    }

    func pull(
        _ cursors: [TableCursor], since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        try await forwardee.pull(cursors, since: mark, limit: limit, function: function, as: try await admit(user))
    }
}

/// Waits (up to 10 s) until `condition` holds.
func waitUntil(isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool) async throws -> Bool {
    for _ in 0..<1_000 {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return false
}
