import Foundation
import HopeSyncLocking

/// Keeps one user's store in sync with the server: a full push and pull on start and on
/// reconnect, a pull every poll interval (or when a poke says the server has something), a push
/// soon after local writes, backing off on failures. It syncs only while the credentials
/// provider returns this store's user.
public actor SyncEngine {
    public nonisolated let store: SyncStore
    public nonisolated let configuration: SyncConfiguration
    let transport: SwitchedTransport
    let credentials: @Sendable () async -> Credentials?
    let pokes: (any PokeSource)?
    /// The app's "simulate offline" switch, checked before every request.
    let networkEnabled = Locked(true)

    public internal(set) var status = SyncStatus()
    var statusObservers: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    var loop: Task<Void, Never>?
    /// The debounce window after a local write, and its number (a window replaced by another
    /// must not end the new one).
    var debounce: (number: Int, task: Task<Void, Never>)?
    var debounceCount = 0
    /// A write came during the debounce window: push when it ends.
    var writesWaiting = false
    var failures = 0
    var wake: (token: Int, continuation: CheckedContinuation<Void, Never>)?
    var wakePending = false
    /// The next pass pushes and pulls everything (a poll, a write, a reconnect); otherwise it
    /// pulls only what pokes named.
    var fullPassDue = true
    /// Tables pokes named since the last pass, each with the highest server_seq named (nil:
    /// none said); a poke naming no table asks for every table.
    var pokedTables: [String: Int64?] = [:]
    var pokedEverything = false
    var pokeListener: Task<Void, Never>?
    /// The poke source is connected: the idle poll is the slow one.
    var pokesConnected = false
    var waitCount = 0
    var passRunning = false
    var passWaiters: [CheckedContinuation<Void, Never>] = []
    /// What the pusher learned of rows the server fails alone (see ``Pusher/failingAlone``).
    var rowsFailingAlone: [String: [String: Int]] = [:]
    /// When the server last lacked a sync function it was called with (SyncEngine+Functions).
    var functionsLackedAt: Date?
    /// Where file columns' files go; nil when none is configured (they then wait, saying so).
    let fileTransport: (any SyncFileTransport)?
    let transfers = FileTransfers()

    /// - Parameters:
    ///   - store: the signed-in user's store, which the engine syncs.
    ///   - transport: how it reaches the server (``PostgRESTTransport`` for Supabase).
    ///   - configuration: its timings and batch sizes.
    ///   - files: where file columns' files go; by default the transport's own
    ///     (``PostgRESTTransport``: its project's Storage). Without one, files wait.
    ///   - pokes: where the engine hears that the server has something new (``RealtimePokes``);
    ///     nil: it polls alone.
    ///   - credentials: the signed-in user and a fresh token, or nil when nobody is signed in.
    ///     Called before every pass, so a refreshed token is picked up.
    @_spi(Transport) public init(
        store: SyncStore,
        transport: any SyncTransport,
        files: (any SyncFileTransport)? = nil,
        configuration: SyncConfiguration = SyncConfiguration(),
        pokes: (any PokeSource)? = nil,
        credentials: @escaping @Sendable () async -> Credentials?
    ) {
        self.store = store
        self.fileTransport = files ?? transport.files
        // Every request states the build's schema version, which the server's floor checks.
        self.transport = SwitchedTransport(
            base: transport.stating(schemaVersion: store.schema.schemaVersion), networkEnabled: networkEnabled)
        self.configuration = configuration
        self.pokes = pokes
        self.credentials = credentials
        // What waits is known before the first pass (rows written in an earlier launch).
        if let counts = try? store.pendingCounts() { status.count(counts) }
    }

    public var isRunning: Bool { loop != nil }

    /// Starts the schedule: a full sync now, then polling. Does nothing when already running.
    public func start() {
        guard loop == nil else { return }
        failures = 0
        store.state.localWriteHandler = { [weak self] in
            Task { await self?.localWriteHappened() }
        }
        fullPassDue = true
        loop = Task { await self.runLoop() }
        listenForPokes()
    }

    /// Stops the schedule (sign-out, going to the background). Local writes keep queuing.
    public func stop() {
        store.state.localWriteHandler = nil
        loop?.cancel()
        loop = nil
        debounce?.task.cancel()
        debounce = nil
        writesWaiting = false
        stopListeningForPokes()
        wakeUp()
        status.phase = networkEnabled.value ? .idle : .offline
        publish()
    }

    /// Stops the schedule and waits for a pass already under way to end, so that nothing
    /// writes to the store afterwards (before it is closed or deleted).
    func stopAndSettle() async {
        stop()
        await acquirePass()
        releasePass()
    }

    /// One full push and pull now.
    @discardableResult
    public func syncNow() async throws(SyncError) -> SyncReport {
        try await runPass()
    }

    /// The "simulate offline" switch. Off: writes queue locally and anything that needs the
    /// server fails with `SyncError(.networkDisabled)`. On again: a full sync (a reconnect).
    public func setNetworkEnabled(_ enabled: Bool) {
        guard networkEnabled.value != enabled else { return }
        networkEnabled.value = enabled
        if enabled {
            failures = 0
            wakeUp()
        } else {
            status.phase = .offline
            publish()
        }
    }

    public var isNetworkEnabled: Bool { networkEnabled.value }

    /// Stops syncing and empties this user's local data (sign-out).
    public func clearLocalData() throws(SyncError) {
        stop()
        try store.clearLocalData()
        publish()
    }

    /// The status now and after every change. Iteration ending unsubscribes.
    public nonisolated func statusUpdates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeStatusObserver(id) }
        }
        Task { await self.addStatusObserver(id, continuation) }
        return stream
    }

    // MARK: Passes

    /// A pass: everything (push, replay, refresh, pull), or with `pullingOnly` a pull of those
    /// tables alone (what pokes named).
    func runPass(pullingOnly tables: [TableSchema]? = nil) async throws(SyncError) -> SyncReport {
        await acquirePass()
        defer { releasePass() }
        status.phase = .syncing
        publish()
        do {
            let report = try await performPass(pullingOnly: tables)
            status.phase = .idle
            status.lastError = nil
            status.lastSyncedAt = configuration.now()
            publish()
            return report
        } catch {
            status.lastError = error
            switch error.code {
            case .schemaDrift:
                status.phase = .schemaDrift(error.serverError.flatMap(SchemaDrift.init) ?? SchemaDrift(table: nil, column: nil))
            case .updateRequired: status.phase = .updateRequired
            case .signedOut, .accessToken: status.phase = .waitingForSignIn
            case .connectivity, .networkDisabled: status.phase = .offline
            default: status.phase = .idle
            }
            publish()
            throw error
        }
    }

    /// The pass's stages in order (``SyncPass``); what outlives the pass stays here.
    private func performPass(pullingOnly tables: [TableSchema]?) async throws(SyncError) -> SyncReport {
        var pass = SyncPass(store: store, transport: transport, credentials: try await signedInUser(), configuration: configuration)
        if let tables {
            try await pass.pull(only: tables)
            return try pass.finish()
        }
        try await pass.repullUpgradedTables()
        let functions = triesFunctions()
        let files = fileSync(for: pass.credentials)
        // A build the server no longer lets write keeps its writes and still pulls.
        var pushed: Pusher?
        if try await pass.buildMayWrite(on: Self.day(of: configuration.now())) {
            let filesWaited = try await pass.uploadFiles(files)
            var pusher = try await pass.push(failingAlone: rowsFailingAlone, announcer: pushAnnouncer())
            rowsFailingAlone = pusher.failingAlone
            if filesWaited {
                // Files of a scope this push just made: up now, then the rows naming them.
                _ = try await pass.uploadFiles(files, beforePush: false)
                pusher = try await pass.push(failingAlone: rowsFailingAlone, announcer: pushAnnouncer())
                rowsFailingAlone = pusher.failingAlone
            }
            try await pass.replayGuarded()
            pushed = pusher
        }
        try await pass.refreshRows()
        let lacking = try await pass.pull(through: functions ? store.schema.pullFunction : nil)
        noteFunctions(tried: functions, lacking: lacking)
        try await pass.downloadFiles(files)
        if let pushed, let again = try await pass.repushClockRefusals(of: pushed) { rowsFailingAlone = again.failingAlone }
        return try pass.finish()
    }

    /// Days since 1970 (UTC): the device says hello once a day.
    private static func day(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The credentials a pass sends with: none while offline or signed out, and never one
    /// user's rows with another user's token.
    func signedInUser() async throws(SyncError) -> Credentials {
        guard networkEnabled.value else {
            throw SyncError(.networkDisabled, "The network is switched off in this app; writes stay queued.")
        }
        guard let user = await credentials() else {
            throw SyncError(.signedOut, "Nobody is signed in; nothing was sent.")
        }
        guard user.userID == store.userID else {
            throw SyncError(.signedOut, "The signed-in user is not this database's user; nothing was sent.")
        }
        return user
    }

    /// Whether this pass's pushes announce themselves: with a source that does, connected as
    /// the push starts.
    private func pushAnnouncer() -> PushAnnouncer? {
        guard let pokes, pokes.announcesWrites, pokesConnected else { return nil }
        return PushAnnouncer(pokes, for: store.userID)
    }

    private func acquirePass() async {
        if passRunning {
            await withCheckedContinuation { passWaiters.append($0) }
        } else {
            passRunning = true
        }
    }

    private func releasePass() {
        if passWaiters.isEmpty {
            passRunning = false
        } else {
            passWaiters.removeFirst().resume()
        }
    }

    // MARK: Status

    func publish() {
        refreshCounts()
        for observer in statusObservers.values { observer.yield(status) }
    }

    private func refreshCounts() {
        if let counts = try? store.pendingCounts() { status.count(counts) }
    }

    private func addStatusObserver(_ id: UUID, _ continuation: AsyncStream<SyncStatus>.Continuation) {
        statusObservers[id] = continuation
        refreshCounts()
        continuation.yield(status)
    }

    private func removeStatusObserver(_ id: UUID) {
        statusObservers[id] = nil
    }
}
