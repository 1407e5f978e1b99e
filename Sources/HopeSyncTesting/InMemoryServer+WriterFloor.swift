import Foundation
@_spi(Transport) import HopeSync

/// The writer floor of the generated SQL (decision 0051): requests state their build's schema
/// version, devices say hello, and while a floor is set a write of a signed-in user below it is
/// refused with PT426 before it changes anything. A request that states nothing (the server used
/// as a transport directly, not through an engine) is version 0, as on the real server. Until a
/// test sets a floor (nil included), the server is one whose SQL predates the hello: it answers
/// none, and no test's count of requests or injected failures meets one.
extension InMemoryServer {
    /// The schema version the current request states (``Build`` sets it around each request).
    @TaskLocal static var requestSchemaVersion: Int?

    /// Sets `oldest_writer`, as a migration of the project would; nil lets every build write.
    public func setOldestWriter(_ version: Int?) {
        writerFloor.isInstalled = true
        writerFloor.oldestWriter = version
    }

    /// Each device's newest schema version, from its hellos (public.sync_devices).
    public var deviceVersions: [String: Int] { writerFloor.devices }

    /// How many hellos the server answered.
    public var helloCount: Int { writerFloor.hellos }

    @_spi(Transport) public nonisolated func stating(schemaVersion: Int) -> any SyncTransport {
        Build(server: self, schemaVersion: schemaVersion)
    }

    @_spi(Transport) public func hello(schemaVersion: Int, deviceID: String, as user: Credentials) async throws(SyncError) -> ServerHello? {
        guard writerFloor.isInstalled else { return nil }
        try admit()
        writerFloor.hellos += 1
        let key = "\(user.userID.lowercasedString) \(deviceID)"
        writerFloor.devices[key] = max(writerFloor.devices[key] ?? 0, schemaVersion)
        try answer()
        return ServerHello(oldestWriter: writerFloor.oldestWriter)
    }

    /// The check every write statement's trigger makes.
    func checkWriter() throws(SyncError) {
        guard let floor = writerFloor.oldestWriter, (Self.requestSchemaVersion ?? 0) < floor else { return }
        throw Self.refusal(
            426, "PT426", "this build of the app is too old to write: update the app",
            details: "oldest_writer \(floor), this build \(Self.requestSchemaVersion ?? 0)")
    }

    struct WriterFloor {
        var isInstalled = false
        var oldestWriter: Int?
        var devices: [String: Int] = [:]
        var hellos = 0
    }

    /// The server as one build's requests reach it: each states the build's schema version.
    struct Build: SyncTransport {
        let server: InMemoryServer
        let schemaVersion: Int

        private func stating<T>(_ request: () async throws(SyncError) -> T) async throws(SyncError) -> T {
            do {
                return try await InMemoryServer.$requestSchemaVersion.withValue(schemaVersion) { try await request() }
            } catch let error as SyncError {
                throw error
            } catch {
                throw SyncError(.server, "\(error)")
            }
        }

        func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
            try await stating { () throws(SyncError) in try await server.upsert(rows, into: table, as: user) }
        }

        func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials, announcingPokes: Bool) async throws(SyncError)
            -> UpsertedRows
        {
            try await stating { () throws(SyncError) in
                try await server.upsert(rows, into: table, as: user, announcingPokes: announcingPokes)
            }
        }

        func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
            try await stating { () throws(SyncError) in try await server.pull(table, after: cursor, limit: limit, as: user) }
        }

        func guardedUpdate(
            _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues, extraFilters: [Filter], returning: [String],
            as user: Credentials
        ) async throws(SyncError) -> [ColumnValues] {
            try await stating { () throws(SyncError) in
                try await server.guardedUpdate(
                    table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
            }
        }

        func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
            try await stating { () throws(SyncError) in try await server.fetch(table, ids: ids, columns: columns, as: user) }
        }

        func pull(_ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials) async throws(SyncError)
            -> PulledTables
        {
            try await stating { () throws(SyncError) in
                try await server.pull(cursors, since: mark, limit: limit, function: function, as: user)
            }
        }

        func changeMembership(_ change: MembershipChange, in membershipTable: TableSchema, as user: Credentials) async throws(SyncError)
            -> [ColumnValues]
        {
            try await stating { () throws(SyncError) in try await server.changeMembership(change, in: membershipTable, as: user) }
        }

        func hello(schemaVersion: Int, deviceID: String, as user: Credentials) async throws(SyncError) -> ServerHello? {
            try await server.hello(schemaVersion: schemaVersion, deviceID: deviceID, as: user)
        }
    }
}
