import Foundation

/// One pass's stages, each a method that reads the pass's context and adds to its outcome;
/// ``SyncEngine`` runs them in order and keeps what outlives the pass (rows failing alone, the
/// server's functions, pokes) itself. A table the server lacks columns of is passed over and the
/// others still sync, and a push or replay the server fails does not keep the pull from running:
/// both are held here and thrown by ``finish()``, once the pass has done what it can.
struct SyncPass {
    let store: SyncStore
    let transport: any SyncTransport
    /// The signed-in user, checked to be the store's.
    let credentials: Credentials
    let configuration: SyncConfiguration

    private(set) var report = SyncReport()
    /// The schema drift refusals of the tables passed over.
    private(set) var drifts: [ServerError] = []
    /// The first server failure of a push or the replay.
    private(set) var held: SyncError?
    /// The server refused this build's writes as older than its writer floor (decision 0051).
    private(set) var buildRefused = false
    /// The day the pass said (or skipped) its hello on, days since 1970.
    private var today: Int64 = 0

    init(store: SyncStore, transport: any SyncTransport, credentials: Credentials, configuration: SyncConfiguration) {
        self.store = store
        self.transport = transport
        self.credentials = credentials
        self.configuration = configuration
    }

    /// Pulls `tables` alone (what pokes named).
    mutating func pull(only tables: [TableSchema]) async throws(SyncError) {
        drifts += try await puller(tables).pull(into: &report)
    }

    /// The tables an upgrade gave columns, pulled again from their start before anything else.
    /// One the server still lacks columns of waits for the next pass.
    mutating func repullUpgradedTables() async throws(SyncError) {
        let upgraded = try await store.onWriter { store throws(SyncError) in try store.tablesAwaitingRepull() }
        guard !upgraded.isEmpty else { return }
        let drifted = try await puller(upgraded).pull(into: &report)
        drifts += drifted
        try await store.onWriter { store throws(SyncError) in
            try store.finishRepull(of: upgraded.filter { table in !drifted.contains { SchemaDrift($0)?.table == table.name } })
        }
    }

    /// Says the device's daily hello when one is due (`day`: days since 1970), and tells whether
    /// this build may write: not once the server said its floor is above it (decision 0051).
    /// A server that refuses the hello (or answers what is not one) is asked again tomorrow, one
    /// passing trouble (a 503) at the next pass; neither keeps the pass from going on. A network
    /// failure fails the pass.
    mutating func buildMayWrite(on day: Int64) async throws(SyncError) -> Bool {
        today = day
        let state = try await store.onWriter { store throws(SyncError) in try store.writerFloorState(on: day) }
        buildRefused = state.isRefused
        guard state.helloIsDue else { return !buildRefused }
        do {
            try await record(try await sayHello())
        } catch  where error.code == .server || error.code == .decoding {
            if error.serverError?.isTransient != true { try await record(nil) }
        }
        return !buildRefused
    }

    /// Uploads the files due. Before the push (`beforePush`): the rows that name a file go only
    /// once it is up. Returns whether a file waited for a scope the push sends
    /// (``FileSync/upload(into:beforePush:)``).
    mutating func uploadFiles(_ files: FileSync, beforePush: Bool = true) async throws(SyncError) -> Bool {
        try await files.upload(into: &report, beforePush: beforePush)
    }

    /// Pushes the dirty rows. Returns the pusher: the engine keeps what it learned of rows
    /// failing alone, and ``repushClockRefusals(of:)`` sends what it held back.
    mutating func push(failingAlone: [String: [String: Int]], announcer: PushAnnouncer?) async throws(SyncError) -> Pusher {
        var pusher = Pusher(
            store: store, transport: transport, credentials: credentials, batchSize: configuration.batchSize, failingAlone: failingAlone)
        pusher.announcer = announcer
        try await send(&pusher)
        return pusher
    }

    /// Runs a pusher; a server's refusal is held so the rest of the pass still runs.
    private mutating func send(_ pusher: inout Pusher) async throws(SyncError) {
        do {
            drifts += try await pusher.push(into: &report)
        } catch  where error.refusesThisBuild {
            try await refuseBuild()
        } catch  where error.writesARetiredColumn {
            try await askTheFloor(after: error)
        } catch  where error.code == .server {
            hold(error)
        }
    }

    /// Sends version tables' queued writes, each guarded by the version it was made on.
    mutating func replayGuarded() async throws(SyncError) {
        let resolver = ResolverRunner(resolver: configuration.resolver, timeout: configuration.resolverTimeout, warn: configuration.warn)
        do {
            try await GuardedReplay(store: store, transport: transport, credentials: credentials, resolver: resolver).replay(into: &report)
        } catch  where error.refusesThisBuild {
            try await refuseBuild()
        } catch  where error.writesARetiredColumn {
            try await askTheFloor(after: error)
        } catch  where error.code == .server {
            hold(error)
        }
    }

    /// A write named a retired column, which only a build below the floor does: the floor is asked
    /// now rather than at tomorrow's hello. A server that lets the build write holds the failure.
    private mutating func askTheFloor(after error: SyncError) async throws(SyncError) {
        guard let hello = try? await sayHello(), !hello.letsWrite(schemaVersion: store.schema.schemaVersion) else { return hold(error) }
        try await record(hello)
    }

    private func sayHello() async throws(SyncError) -> ServerHello? {
        try await transport.hello(schemaVersion: store.schema.schemaVersion, deviceID: store.deviceID, as: credentials)
    }

    /// Keeps today's hello (nil: the server said nothing of a floor, which leaves the build as
    /// it was) and what it says of this build.
    private mutating func record(_ hello: ServerHello?) async throws(SyncError) {
        try await store.onWriter { [today] store throws(SyncError) in try store.recordHello(hello, on: today) }
        if let hello { buildRefused = !hello.letsWrite(schemaVersion: store.schema.schemaVersion) }
    }

    /// A write met the server's floor: this build sends no more writes, now or in later passes.
    private mutating func refuseBuild() async throws(SyncError) {
        buildRefused = true
        try await store.onWriter { store throws(SyncError) in try store.recordBuildRefused() }
    }

    /// Replaces the rows the store asked for again (a settled write the server never took) with
    /// the server's copy: no pull would bring them back.
    func refreshRows() async throws(SyncError) {
        for (table, rowID) in try await store.onWriter({ store throws(SyncError) in try store.rowsToRefresh() }) {
            let server = try await transport.fetch(table, id: rowID, columns: table.columnNames, as: credentials)
            try await store.onWriter { store throws(SyncError) in try store.refresh(table, rowID: rowID, with: server) }
        }
    }

    /// Pulls every table: through the server's pull `function` when given one, table by table
    /// otherwise or when the server lacks it. Returns whether it lacked it.
    mutating func pull(through function: String?) async throws(SyncError) -> Bool {
        guard let function else {
            drifts += try await puller().pull(into: &report)
            return false
        }
        let tables = TablesPuller(
            store: store, transport: transport, credentials: credentials, pageSize: configuration.pageSize,
            lookback: configuration.lookback, function: function)
        do {
            drifts += try await tables.pull(into: &report)
            return false
        } catch  where error.lacksFunction(function) {
            drifts += try await puller().pull(into: &report)
            return true
        }
    }

    /// Downloads the files the pulled rows name. After the pull: it brings the files in line
    /// with the rows.
    mutating func downloadFiles(_ files: FileSync) async throws(SyncError) {
        try await files.download(into: &report)
    }

    /// The claims the server refused as past its clock, made again now that the pull told the
    /// store the server's time, and pushed once more: a second refusal is the rows' own. Returns
    /// that second pusher (for the rows failing alone), nil when nothing was refused.
    mutating func repushClockRefusals(of pusher: Pusher) async throws(SyncError) -> Pusher? {
        let refused = pusher.refusedForTheClock
        guard !refused.isEmpty else { return nil }
        _ = try await store.onWriter { store throws(SyncError) in try store.restampClaimsPastServerClock(in: refused) }
        var again = pusher
        again.tables = refused
        again.clockRefusalIsTheRows = true
        try await send(&again)
        return again
    }

    /// The pass's report, or what it held: a build the server no longer lets write first (its
    /// pulls ran), then schema drift (a held failure that is drift counts as one), then the
    /// server's failure.
    func finish() throws(SyncError) -> SyncReport {
        if buildRefused { throw .updateRequired }
        var drifts = drifts
        if let held, let server = held.serverError, SchemaDrift(server) != nil { drifts.append(server) }
        if !drifts.isEmpty { throw SchemaDrift.error(drifts) }
        if let held { throw held }
        return report
    }

    /// The first failure is the one the pass throws.
    private mutating func hold(_ error: SyncError) {
        held = held ?? error
    }

    private func puller(_ tables: [TableSchema]? = nil) -> Puller {
        var puller = Puller(
            store: store, transport: transport, credentials: credentials, pageSize: configuration.pageSize, lookback: configuration.lookback
        )
        puller.tables = tables
        return puller
    }
}
