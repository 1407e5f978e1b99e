import Foundation
import HopeSync
import HopeSyncLocking

/// An auth source a test drives (`SyncClient`'s): who is signed in, their token (`token-1` until
/// a refresh hands out the next of `refreshedTokens`), and how often a refresh was forced.
public final class ScriptedAuth: SyncAuthSource {
    public struct State: Sendable {
        public var user: UUID?
        public var token = "token-1"
        public var refreshedTokens: [String] = []
        public var refreshCount = 0
        public var followers: [UUID: AsyncStream<UUID?>.Continuation] = [:]
    }

    public let state = Locked(State())

    public init(_ user: UUID? = nil) {
        state.withLock { $0.user = user }
    }

    public var users: AsyncStream<UUID?> {
        let (stream, continuation) = AsyncStream.makeStream(of: UUID?.self)
        let id = UUID()
        continuation.onTermination = { [state] _ in state.withLock { _ = $0.followers.removeValue(forKey: id) } }
        state.withLock { state in
            state.followers[id] = continuation
            continuation.yield(state.user)
        }
        return stream
    }

    public func signIn(_ user: UUID?) {
        state.withLock { state in
            state.user = user
            for follower in state.followers.values { follower.yield(user) }
        }
    }

    public func signOut() { signIn(nil) }

    public func currentCredentials() async throws -> Credentials {
        try state.withLock { state in
            guard let user = state.user else { throw CancellationError() }
            return Credentials(userID: user, accessToken: state.token)
        }
    }

    public func refreshedCredentials() async throws -> Credentials {
        try state.withLock { state in
            guard let user = state.user else { throw CancellationError() }
            state.refreshCount += 1
            if !state.refreshedTokens.isEmpty { state.token = state.refreshedTokens.removeFirst() }
            return Credentials(userID: user, accessToken: state.token)
        }
    }

    public var refreshCount: Int { state.value.refreshCount }
}

/// Waits (up to 10 s) until `condition` holds.
public func waitUntil(isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool) async throws -> Bool {
    for _ in 0..<1_000 {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return false
}
