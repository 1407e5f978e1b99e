import Foundation

/// The app's one entry point: made from the generated schema, a directory for the stores, the
/// server and one auth source, it follows who is signed in by itself. At a sign-in it opens
/// that user's store (each user their own file, ``SyncStore/databaseURL(for:in:)``) and starts
/// an engine whose transports all take their tokens from the auth source; at a sign-out it
/// stops the engine and closes the store, keeping or deleting that user's data as
/// ``Configuration/signOutPolicy`` says; a switch from one user to another is both.
///
/// ```swift
/// let client = SyncClient(schema: GeneratedSchema.app, directory: appSupport,
///                         projectURL: projectURL, anonKey: anonKey, auth: SupabaseAuthSource(auth: supabase.auth))
/// await client.start()
/// if let store = await client.store { try await store.write { try $0.save(habit) } }
/// ```
///
/// The lower-level types stay for apps that need them: ``SyncStore``, ``SyncEngine`` and the
/// transports are what the client drives.
public actor SyncClient {
    public nonisolated let schema: AppSchema
    /// Where the users' databases and files folders are.
    public nonisolated let directory: URL
    public nonisolated let auth: any SyncAuthSource
    public nonisolated let configuration: Configuration
    let makeConnection: @Sendable (Tokens) -> Connection

    /// The signed-in user's store and engine; nil while nobody is signed in.
    public private(set) var session: SyncSession?
    /// What the next sign-out (or switch) does with the signed-out user's data.
    public private(set) var signOutPolicy: SignOutPolicy
    /// The current session's status; `.waitingForSignIn` while nobody is signed in.
    public private(set) var status = SyncClient.signedOutStatus
    var following: Task<Void, Never>?
    var forwarding: Task<Void, Never>?
    var statusObservers: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    var sessionObservers: [UUID: AsyncStream<SyncSession?>.Continuation] = [:]

    /// A client against a Supabase project: PostgREST for rows, Storage for files, Realtime for
    /// pokes.
    public init(
        schema: AppSchema, directory: URL, projectURL: URL, anonKey: String, auth: any SyncAuthSource,
        configuration: Configuration = Configuration()
    ) {
        self.init(
            schema: schema, directory: directory, auth: auth, configuration: configuration,
            connection: Self.supabase(projectURL: projectURL, anonKey: anonKey, configuration: configuration))
    }

    /// A client whose engines talk to what `connection` makes (once per signed-in user): a
    /// test server, a local PostgreSQL, a transport of the app's own.
    @_spi(Transport) public init(
        schema: AppSchema, directory: URL, auth: any SyncAuthSource, configuration: Configuration = Configuration(),
        connection: @escaping @Sendable (Tokens) -> Connection
    ) {
        self.schema = schema
        self.directory = directory
        self.auth = auth
        self.configuration = configuration
        self.signOutPolicy = configuration.signOutPolicy
        self.makeConnection = connection
    }

    static var signedOutStatus: SyncStatus {
        var status = SyncStatus()
        status.phase = .waitingForSignIn
        return status
    }

    /// The signed-in user's store; nil while nobody is signed in.
    public var store: SyncStore? { session?.store }
    /// The signed-in user, once their store is open.
    public var userID: UUID? { session?.userID }
    public var isRunning: Bool { following != nil }

    // MARK: Lifecycle

    /// Follows the auth source: opens the signed-in user's store and syncs it, and keeps doing
    /// so across sign-outs and switches until ``stop()``. Does nothing when already running.
    public func start() {
        guard following == nil else { return }
        let users = auth.users
        following = Task { [weak self] in
            for await user in users {
                guard let self, !Task.isCancelled else { return }
                await self.follow(user)
            }
        }
    }

    /// Stops following the auth source and closes the session, keeping its data.
    public func stop() async {
        following?.cancel()
        following = nil
        if let session { await close(session, policy: .keepData) }
    }

    /// What the next sign-out (or switch to another user) does with the current user's data:
    /// set `.clearData` just before signing the user out to leave nothing of theirs behind.
    /// The session ends at once (``store`` is nil from then on); the files are deleted once the
    /// engine's pass under way has settled, a moment later.
    public func setSignOutPolicy(_ policy: SignOutPolicy) {
        signOutPolicy = policy
    }

    /// One full push and pull now; `SyncError(.signedOut)` while nobody is signed in.
    @discardableResult
    public func syncNow() async throws(SyncError) -> SyncReport {
        guard let session else { throw SyncError(.signedOut, "Nobody is signed in; nothing was sent.") }
        return try await session.engine.syncNow()
    }

    /// Deletes `userID`'s local database and files. For the signed-in user it empties their
    /// data instead (``SyncEngine/clearLocalData()``) and syncs on from the start.
    public func removeLocalData(of userID: UUID) async throws(SyncError) {
        if let session, session.userID == userID {
            try await session.engine.clearLocalData()
            await session.engine.start()
            return
        }
        try Self.deleteFiles(of: userID, in: directory)
    }

    // MARK: Lists

    /// The current user's writes held for them to settle (Keep mine, Keep theirs); none while
    /// signed out.
    public func conflictedMutations() throws(SyncError) -> [ConflictedMutation] {
        try session?.store.conflictedMutations() ?? []
    }

    /// The current user's writes the server refused (Retry, Dismiss); none while signed out.
    public func rejectedMutations() throws(SyncError) -> [RejectedMutation] {
        try session?.store.rejectedMutations() ?? []
    }

    // MARK: Updates

    /// The status now and after every change, across sign-ins and switches. Iteration ending
    /// unsubscribes.
    public nonisolated func statusUpdates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
        Task { await self.addStatusObserver(id, continuation) }
        return stream
    }

    /// The session now and at every sign-in, sign-out and switch (a screen's store).
    public nonisolated func sessionUpdates() -> AsyncStream<SyncSession?> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncSession?.self)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
        Task { await self.addSessionObserver(id, continuation) }
        return stream
    }

    private func addStatusObserver(_ id: UUID, _ continuation: AsyncStream<SyncStatus>.Continuation) {
        statusObservers[id] = continuation
        continuation.yield(status)
    }

    private func addSessionObserver(_ id: UUID, _ continuation: AsyncStream<SyncSession?>.Continuation) {
        sessionObservers[id] = continuation
        continuation.yield(session)
    }

    private func removeObserver(_ id: UUID) {
        statusObservers[id] = nil
        sessionObservers[id] = nil
    }

    private func publish(_ status: SyncStatus) {
        self.status = status
        for observer in statusObservers.values { observer.yield(status) }
    }

    private func publishSession() {
        for observer in sessionObservers.values { observer.yield(session) }
    }

    // MARK: Following the auth source

    /// The auth source named `user`: the session becomes theirs (nobody's for nil).
    func follow(_ user: UUID?) async {
        guard session?.userID != user else { return }
        if let session {
            await close(session, policy: signOutPolicy)
            signOutPolicy = configuration.signOutPolicy
        }
        // Stopped meanwhile: nothing opens until the next start.
        guard let user, following != nil, !Task.isCancelled else { return }
        do {
            try await open(user)
        } catch {
            var failed = Self.signedOutStatus
            failed.lastError = error
            publish(failed)
        }
    }

    private func open(_ user: UUID) async throws(SyncError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SyncError(.configuration, "Cannot create the stores' directory \(directory.path): \(error)")
        }
        let store = try SyncStore(
            path: SyncStore.databaseURL(for: user, in: directory).path, schema: schema, userID: user,
            deviceID: configuration.deviceID, wallClock: configuration.wallClock)
        let auth = auth
        // A token of another user (the auth source switched before its stream said so) is
        // refused here: one user's rows never go with another's token.
        let connection = makeConnection(
            Tokens(
                current: { try await Self.token(of: auth.currentCredentials(), for: user) },
                refreshed: { try await Self.token(of: auth.refreshedCredentials(), for: user) }))
        // The engine checks the credentials' user against its store's, and sends nothing else.
        let engine = SyncEngine(
            store: store, transport: connection.transport, files: connection.files, configuration: configuration.sync,
            pokes: connection.pokes
        ) { try? await auth.currentCredentials() }
        let session = SyncSession(store: store, engine: engine)
        self.session = session
        publishSession()
        let updates = engine.statusUpdates()
        forwarding = Task { [weak self] in
            for await status in updates {
                guard let self else { return }
                await self.received(status, from: engine)
            }
        }
        await engine.start()
    }

    static func token(of credentials: Credentials, for user: UUID) throws(SyncError) -> String {
        guard credentials.userID == user else {
            throw SyncError(.signedOut, "The signed-in user is not this database's user; nothing was sent.")
        }
        return credentials.accessToken
    }

    private func received(_ status: SyncStatus, from engine: SyncEngine) {
        guard session?.engine === engine else { return }
        publish(status)
    }

    /// Stops `session`'s engine, waits for a pass under way, closes its store and, for
    /// `.clearData`, deletes its files: nothing is deleted while the engine still writes.
    private func close(_ session: SyncSession, policy: SignOutPolicy) async {
        self.session = nil
        forwarding?.cancel()
        forwarding = nil
        publishSession()
        publish(Self.signedOutStatus)
        await session.engine.stopAndSettle()
        session.store.close()
        guard policy == .clearData else { return }
        do {
            try Self.deleteFiles(of: session.userID, in: directory)
        } catch {
            var failed = Self.signedOutStatus
            failed.lastError = error
            publish(failed)
        }
    }

    /// Removes a closed store's database (with its WAL files) and its files folder.
    static func deleteFiles(of userID: UUID, in directory: URL) throws(SyncError) {
        let database = SyncStore.databaseURL(for: userID, in: directory)
        let paths = [database.path, database.path + "-wal", database.path + "-shm", database.path + "-journal"]
        let folder = FileFolder(databasePath: database.path).root
        do {
            for path in paths + [folder.path] where FileManager.default.fileExists(atPath: path) {
                try FileManager.default.removeItem(atPath: path)
            }
        } catch {
            throw SyncError(.localFile, "Cannot delete the local data of a signed-out user: \(error)")
        }
    }
}
