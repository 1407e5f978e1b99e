import Foundation

// A stand-in for supabase-swift (github.com/supabase/supabase-swift, v2), which a test cannot
// fetch: the few declarations of its public API that SupabaseAuthSource.swift uses, with the
// same names and signatures, and a scripted auth server behind them. Swap in the real package
// and the adapter compiles unchanged.

public struct User: Sendable, Codable, Hashable, Identifiable {
    public var id: UUID
    public var email: String?

    public init(id: UUID, email: String? = nil) {
        self.id = id
        self.email = email
    }
}

public struct Session: Sendable, Codable, Hashable {
    public var accessToken: String
    public var refreshToken: String
    public var expiresIn: Double
    public var user: User

    public init(accessToken: String, refreshToken: String, expiresIn: Double = 3_600, user: User) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.user = user
    }
}

public enum AuthChangeEvent: String, Sendable {
    case initialSession = "INITIAL_SESSION"
    case passwordRecovery = "PASSWORD_RECOVERY"
    case signedIn = "SIGNED_IN"
    case signedOut = "SIGNED_OUT"
    case tokenRefreshed = "TOKEN_REFRESHED"
    case userUpdated = "USER_UPDATED"
    case userDeleted = "USER_DELETED"
    case mfaChallengeVerified = "MFA_CHALLENGE_VERIFIED"
}

public enum AuthError: Error, Sendable {
    case sessionMissing
}

public final class AuthClient: Sendable {
    private let state = StandInState()

    init() {}

    /// The current session, refreshed first when it has expired; throws when signed out.
    public var session: Session {
        get async throws {
            guard let session = state.current else { throw AuthError.sessionMissing }
            return session
        }
    }

    public var currentSession: Session? { state.current }

    /// Every auth event from now on, the first being `.initialSession` with the current session.
    public var authStateChanges: AsyncStream<(event: AuthChangeEvent, session: Session?)> {
        state.changes()
    }

    @discardableResult
    public func refreshSession(refreshToken: String? = nil) async throws -> Session {
        guard let session = state.refresh() else { throw AuthError.sessionMissing }
        return session
    }

    public func signOut() async throws {
        state.set(nil, event: .signedOut)
    }

    // MARK: The stand-in's own script (not supabase-swift's API)

    /// Signs `user` in with a first token, as a sign-in with a password or a provider would.
    public func standInSignIn(_ user: UUID) {
        state.set(Session(accessToken: "\(user.uuidString.prefix(4))-1", refreshToken: "r", user: User(id: user)), event: .signedIn)
    }

    /// How many times a session was refreshed.
    public var standInRefreshes: Int { state.refreshes }
}

public final class SupabaseClient: Sendable {
    public let auth = AuthClient()
    public let supabaseURL: URL
    public let supabaseKey: String

    public init(supabaseURL: URL, supabaseKey: String) {
        self.supabaseURL = supabaseURL
        self.supabaseKey = supabaseKey
    }
}

/// The stand-in's session and listeners, behind a lock.
final class StandInState: @unchecked Sendable {
    private let lock = NSLock()
    private var session: Session?
    private var refreshCount = 0
    private var listeners: [UUID: AsyncStream<(event: AuthChangeEvent, session: Session?)>.Continuation] = [:]

    var current: Session? { lock.withLock { session } }
    var refreshes: Int { lock.withLock { refreshCount } }

    func changes() -> AsyncStream<(event: AuthChangeEvent, session: Session?)> {
        let (stream, continuation) = AsyncStream.makeStream(of: (event: AuthChangeEvent, session: Session?).self)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.listeners.removeValue(forKey: id) } }
        lock.withLock {
            listeners[id] = continuation
            continuation.yield((.initialSession, session))
        }
        return stream
    }

    func set(_ new: Session?, event: AuthChangeEvent) {
        lock.withLock {
            session = new
            for listener in listeners.values { listener.yield((event, new)) }
        }
    }

    func refresh() -> Session? {
        lock.withLock {
            guard var current = session else { return nil }
            refreshCount += 1
            let prefix = current.accessToken.split(separator: "-").first.map(String.init) ?? "token"
            current.accessToken = "\(prefix)-\(refreshCount + 1)"
            session = current
            for listener in listeners.values { listener.yield((.tokenRefreshed, current)) }
            return current
        }
    }
}
