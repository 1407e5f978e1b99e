import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SyncClient {
    /// The client's options; the defaults suit an app.
    public struct Configuration: Sendable {
        /// The engine's schedule, batch sizes and conflict resolver, for every user's engine.
        public var sync: SyncConfiguration
        /// What happens to a user's local data when they sign out or another user signs in.
        public var signOutPolicy: SignOutPolicy
        /// The session the Supabase transports send with.
        public var session: URLSession
        /// Whether the Supabase connection hears pokes through Realtime (never on watchOS, which
        /// does not allow WebSockets to ordinary apps).
        public var usesRealtime: Bool
        /// The device id each user's store opens with; nil: a random one, made when the store is
        /// created and kept in it. Fixed, with `wallClock`, where the output must be the same
        /// every run (the package's tests and demo; not the app's to set).
        package var deviceID: String? = nil
        /// Each user's store's wall clock, in milliseconds since 1970: its hybrid clock never goes
        /// behind it. By default the system's.
        package var wallClock: @Sendable () -> Int64 = SyncStore.systemClock

        public init(
            sync: SyncConfiguration = SyncConfiguration(),
            signOutPolicy: SignOutPolicy = .keepData,
            session: URLSession = .shared,
            usesRealtime: Bool = true
        ) {
            self.sync = sync
            self.signOutPolicy = signOutPolicy
            self.session = session
            self.usesRealtime = usesRealtime
        }
    }

    /// What one signed-in user's engine talks to. A client against Supabase makes PostgREST,
    /// Storage and Realtime; tests hand the client another (an in-memory server, a local
    /// PostgreSQL) through ``SyncClient/init(schema:directory:auth:configuration:connection:)``.
    @_spi(Transport) public struct Connection: Sendable {
        public var transport: any SyncTransport
        /// Where file columns' files go; nil: the transport's own (``SyncTransport/files``).
        public var files: (any SyncFileTransport)?
        /// Where the engine hears that the server has something new; nil: it polls.
        public var pokes: (any PokeSource)?

        public init(transport: any SyncTransport, files: (any SyncFileTransport)? = nil, pokes: (any PokeSource)? = nil) {
            self.transport = transport
            self.files = files
            self.pokes = pokes
        }
    }

    /// The auth source's tokens, as a connection's transports ask for them.
    @_spi(Transport) public struct Tokens: Sendable {
        /// The signed-in user's current token.
        public let current: @Sendable () async throws -> String
        /// A token refreshed now: what a transport asks for when the server refused one.
        public let refreshed: @Sendable () async throws -> String

        public init(
            current: @escaping @Sendable () async throws -> String, refreshed: @escaping @Sendable () async throws -> String
        ) {
            self.current = current
            self.refreshed = refreshed
        }
    }

    /// PostgREST and Storage at `projectURL`, and Realtime unless the configuration says no,
    /// each taking a refused token's replacement from `tokens`.
    @_spi(Transport) public static func supabase(
        projectURL: URL, anonKey: String, configuration: Configuration = Configuration()
    ) -> @Sendable (Tokens) -> Connection {
        { tokens in
            let transport = PostgRESTTransport(
                configuration: .init(
                    projectURL: projectURL, anonKey: anonKey, session: configuration.session,
                    accessToken: { try await tokens.refreshed() }))
            var connection = Connection(transport: transport, files: StorageTransport(postgREST: transport.configuration))
            #if !os(watchOS)
                if configuration.usesRealtime { connection.pokes = RealtimePokes(projectURL: projectURL, apiKey: anonKey) }
            #endif
            return connection
        }
    }
}

/// One signed-in user's store and the engine that syncs it, while that user is signed in.
public struct SyncSession: Sendable {
    public var userID: UUID { store.userID }
    public let store: SyncStore
    public let engine: SyncEngine
}

extension SyncStatus {
    /// Whether syncing waits for the user: nobody is signed in, or the server refused the
    /// token even after the auth source refreshed it (a second refusal is the server's 401).
    public var needsSignIn: Bool {
        if phase == .waitingForSignIn { return true }
        guard let error = lastError else { return false }
        return error.code == .accessToken || error.serverError?.refusesToken == true
    }
}
