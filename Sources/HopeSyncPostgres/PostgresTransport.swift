import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncPostgresClient

/// The transport for server-side Swift, tools and the end-to-end tests: the PostgREST
/// transport's operations as SQL over libpq, against the database PostgREST would serve.
///
/// Each request is one transaction whose first statement sets the role `authenticated` and the
/// JWT claims `{"sub": <user>, "role": "authenticated"}` as PostgREST does, so the table's real
/// triggers and row-level security decide, and refusals keep PostgreSQL's SQLSTATE as the code
/// with the HTTP status PostgREST would answer. The connection string authenticates to the
/// database (usually as a login role that may `set role authenticated`); the credentials'
/// token is not checked here: whoever holds the connection string is trusted to name the user.
///
/// Timestamps are read as PostgREST writes them (`to_json` in UTC: `2026-10-18T13:00:27.486123+00:00`),
/// so a version read here guards a write sent over HTTP and back; json columns arrive in the
/// HTTP transport's canonical text.
///
/// Concurrent requests each use a connection of their own from a small pool (see
/// ``Configuration/maximumConnections``); libpq blocks, so requests run on a dispatch queue,
/// never on Swift's cooperative threads. A cancelled task's request is not sent; one under
/// way is cancelled on the server (libpq's cancel request) and fails with `.cancelled`.
/// Errors never hold the password or a filter value.
@_spi(Transport) public struct PostgresTransport: SyncTransport {
    public struct Configuration: Sendable {
        /// A libpq connection string or URL, e.g. `postgresql://postgres@127.0.0.1:5432/app`.
        public var url: String
        /// At most this many requests run at once (each on its own connection); more wait.
        public var maximumConnections: Int
        /// The statement timeout of every request (PostgREST's per-role setting); a request
        /// that runs longer fails with 57014 (HTTP 500).
        public var statementTimeout: Duration
        /// Where time is counted, when set (benchmarks).
        public var timings: RequestTimings?
        /// The build's schema version every request states (as PostgREST passes the header
        /// `X-Sync-Schema` on); nil states none. The engine sets it.
        public var schemaVersion: Int?

        public init(url: String, maximumConnections: Int = 4, statementTimeout: Duration = .seconds(30), timings: RequestTimings? = nil) {
            self.url = url
            self.maximumConnections = maximumConnections
            self.statementTimeout = statementTimeout
            self.timings = timings
        }
    }

    public let configuration: Configuration
    private let pool: ConnectionPool

    public init(configuration: Configuration) {
        self.init(configuration: configuration, pool: ConnectionPool(url: configuration.url, limit: configuration.maximumConnections))
    }

    private init(configuration: Configuration, pool: ConnectionPool) {
        self.configuration = configuration
        self.pool = pool
    }

    /// The same transport (its connections too), its requests stating `schemaVersion`.
    public func stating(schemaVersion: Int) -> any SyncTransport {
        var configuration = configuration
        configuration.schemaVersion = schemaVersion
        return PostgresTransport(configuration: configuration, pool: pool)
    }

    /// `select public.sync_hello($1, $2)`; a database without the function answers nil.
    public func hello(schemaVersion: Int, deviceID: String, as user: Credentials) async throws(SyncError) -> ServerHello? {
        do throws(SyncError) {
            let answer = try await request(on: ServerHello.function, as: user, readOnly: false) { connection throws(PostgresError) in
                try connection.execute("select public.sync_hello($1::integer, $2)::text", [String(schemaVersion), deviceID]).rows.first?[0]
            }.value
            guard let answer, let json = try? JSONValue(parsing: Data(answer.utf8)) else {
                throw SyncError(.decoding, "The answer of \(ServerHello.function) is not JSON")
            }
            return try ServerHello(answer: json)
        } catch  where error.lacksFunction(ServerHello.function) {
            return nil
        }
    }

    public init(url: String) {
        self.init(configuration: Configuration(url: url))
    }

    @discardableResult
    public func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try await upsert(rows, into: table, as: user, announcingPokes: false)
    }

    @discardableResult
    public func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials, announcingPokes: Bool) async throws(SyncError)
        -> UpsertedRows
    {
        guard !rows.isEmpty else { return UpsertedRows(rows: []) }
        let statement = try PostgresStatement.upsert(rows, into: table)
        let sequence = Self.sequenceColumn(of: table)
        let (page, serverTimeMs) = try await request(
            on: table.name, as: user, readOnly: false, announcingPokes: announcingPokes
        ) { connection throws(PostgresError) in
            try connection.execute(statement.sql, statement.parameters) { rows throws(PostgresError) in
                PostgresRowDecoding.page(rows, of: table, sequence: sequence)
            }
        }
        return UpsertedRows(rows: page.rows, undecodable: page.undecodable, serverTimeMs: serverTimeMs)
    }

    public func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        guard limit > 0 else { throw SyncError(.invalidRequest, "A pull of \(table.name) needs a positive limit") }
        let sequence = Self.sequenceColumn(of: table)
        let statement = PostgresStatement.pull(table, sequence: sequence, after: cursor, limit: limit)
        let timings = configuration.timings
        // Read in place on libpq's thread, inside the request's transaction: no row is copied
        // into strings first.
        var (page, serverTimeMs) = try await request(on: table.name, as: user, readOnly: true) { connection throws(PostgresError) in
            try connection.execute(statement.sql, statement.parameters) { rows throws(PostgresError) in
                timings.measure(.decode) { PostgresRowDecoding.page(rows, of: table, sequence: sequence) }
            }
        }
        page.serverTimeMs = serverTimeMs
        return page
    }

    public func guardedUpdate(
        _ table: TableSchema,
        id: UUID,
        baseVersion: String,
        set values: ColumnValues,
        extraFilters: [Filter],
        returning: [String],
        as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        let version = try table.guardedVersionColumn(setting: values)
        let columns = try table.columns(named: returning)
        let statement = try PostgresStatement.guardedUpdate(
            table, id: id.uuidString.lowercased(), version: version, baseVersion: baseVersion,
            set: values, filters: extraFilters, returning: columns
        )
        return try await rows(of: statement, columns: columns, on: table.name, as: user, readOnly: false)
    }

    public func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues]
    {
        guard !ids.isEmpty else { return [] }
        let columns = try table.columns(named: columns)
        let statement = PostgresStatement.fetch(table, ids: ids.map { $0.uuidString.lowercased() }, columns: columns)
        return try await rows(of: statement, columns: columns, on: table.name, as: user, readOnly: true)
    }

    /// `select public.<function>(cursors, since, page_limit)` in a read-only request.
    public func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        guard limit > 0 else { throw SyncError(.invalidRequest, "A pull needs a positive limit") }
        let statement = PostgresStatement.pull(
            function: function, cursors: FunctionCoding.cursorsArgument(cursors), since: mark, limit: limit)
        let (body, serverTimeMs) = try await request(on: function, as: user, readOnly: true) { connection throws(PostgresError) in
            try connection.execute(statement.sql, statement.parameters) { rows throws(PostgresError) in
                rows.count > 0 ? rows.bytes(row: 0, column: 0).map { Data($0) } : nil
            }
        }
        guard let body else { throw SyncError(.decoding, "The pull function answered nothing") }
        return try FunctionCoding.pulledTables(body, asked: cursors, since: mark, serverTimeMs: serverTimeMs)
    }

    // MARK: Requests

    private static func sequenceColumn(of table: TableSchema) -> String {
        table.columns.first { $0.role == .serverSeq }?.name ?? ReservedColumn.serverSeq
    }

    /// Runs `statement` as one request and reads the rows it returns in place; a row that does not
    /// read fails the call.
    func rows(
        of statement: PostgresStatement, columns: [ColumnSchema], on table: String, as user: Credentials, readOnly: Bool
    ) async throws(SyncError) -> [ColumnValues] {
        try await request(on: table, as: user, readOnly: readOnly) { connection throws(PostgresError) in
            try connection.execute(statement.sql, statement.parameters) { rows throws(PostgresError) in
                PostgresRowDecoding.rows(rows, columns: columns, of: table)
            }
        }.value.get()
    }

    /// Runs `body` as one PostgREST-style request of `user`: one transaction (read-only for
    /// reads), the role and claims set first. Returns `body`'s value and the server's clock at
    /// the start of the request (what an HTTP answer's `Date` header tells).
    func request<T: Sendable>(
        on table: String, as user: Credentials, readOnly: Bool, announcingPokes: Bool = false,
        _ body: @escaping @Sendable (Connection) throws(PostgresError) -> T
    ) async throws(SyncError) -> (value: T, serverTimeMs: Int64?) {
        if Task.isCancelled { throw SyncError(.cancelled, "The request was cancelled") }
        let headers = PostgresStatement.headers(announcingPokes: announcingPokes, schemaVersion: configuration.schemaVersion)
        let settings = [Self.claims(for: user), "\(configuration.statementTimeout.milliseconds)ms", headers]
        let timings = configuration.timings
        do throws(PostgresError) {
            return try await pool.run { connection throws(PostgresError) in
                try timings.measure(.query) { () throws(PostgresError) in
                    try connection.execute(readOnly ? "begin read only" : "begin")
                    do throws(PostgresError) {
                        let clock = try connection.execute(PostgresStatement.requestSettings, settings).rows.first?[4]
                        let result = try body(connection)
                        try connection.execute("commit")
                        return (result, clock.flatMap { Int64($0) })
                    } catch {
                        // A failed rollback means the connection is gone; the first error says more.
                        _ = try? connection.execute("rollback")
                        throw error
                    }
                }
            }
        } catch {
            if Task.isCancelled { throw SyncError(.cancelled, "The request was cancelled") }
            throw PostgresFailure.syncError(error, table: table)
        }
    }

    /// PostgREST's claims for a signed-in user (`auth.uid()` reads `sub`).
    static func claims(for user: Credentials) -> String {
        #"{"sub": "\#(user.userID.uuidString.lowercased())", "role": "authenticated"}"#
    }
}
