import Foundation
import HopeSyncModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport the apps use: PostgREST over HTTP, as Supabase serves it at `<project>/rest/v1`.
///
/// Every request is signed with the token of the ``Credentials`` it is made for. When PostgREST
/// refuses that token as invalid or expired (401 with PGRST301 or PGRST303), the transport asks
/// ``Configuration/accessToken`` once for a fresh one and resends once; a second refusal is
/// the answer. The fresh token then stands in for the refused one on that user's later requests,
/// until the engine passes newer credentials. Nothing here logs, and no error message holds a
/// URL, a filter value or a token.
@_spi(Transport) public struct PostgRESTTransport: SyncTransport {
    public struct Configuration: Sendable {
        /// The project's URL, e.g. `https://abcd.supabase.co`; requests go to `<this>/rest/v1`.
        public var projectURL: URL
        /// The project's anon key, sent as `apikey` (the gateway checks it).
        public var anonKey: String
        /// The signed-in user's current token, like supabase-swift's `accessToken` option; nil
        /// when nobody is signed in. Asked only when PostgREST refuses the token it was given.
        public var accessToken: @Sendable () async throws -> String?
        /// How long a request may wait for its answer.
        public var requestTimeout: TimeInterval
        public var session: URLSession
        /// The build's schema version every request states (`X-Sync-Schema`); nil states none.
        /// The engine sets it (``SyncTransport/stating(schemaVersion:)``).
        public var schemaVersion: Int?

        public init(
            projectURL: URL,
            anonKey: String,
            requestTimeout: TimeInterval = 30,
            session: URLSession = .shared,
            accessToken: @escaping @Sendable () async throws -> String?
        ) {
            self.projectURL = projectURL
            self.anonKey = anonKey
            self.requestTimeout = requestTimeout
            self.session = session
            self.accessToken = accessToken
        }
    }

    public let configuration: Configuration
    private let refreshedTokens: RefreshedTokens

    public init(configuration: Configuration) {
        self.init(configuration: configuration, refreshedTokens: RefreshedTokens())
    }

    private init(configuration: Configuration, refreshedTokens: RefreshedTokens) {
        self.configuration = configuration
        self.refreshedTokens = refreshedTokens
    }

    /// The same transport (the tokens it refreshed too), its requests stating `schemaVersion`.
    public func stating(schemaVersion: Int) -> any SyncTransport {
        var configuration = configuration
        configuration.schemaVersion = schemaVersion
        return PostgRESTTransport(configuration: configuration, refreshedTokens: refreshedTokens)
    }

    /// `POST /rpc/sync_hello` with `{"schema_version": n, "device_id": "..."}`; a server without
    /// the function (its SQL predates it) answers nil.
    public func hello(schemaVersion: Int, deviceID: String, as user: Credentials) async throws(SyncError) -> ServerHello? {
        let body = JSONValue.object([("schema_version", .number(String(schemaVersion))), ("device_id", .string(deviceID))])
        let request = PostgRESTRequest(
            method: "POST", table: ServerHello.function, query: [], body: Data(body.canonicalText.utf8), isFunction: true)
        do throws(SyncError) {
            return try ServerHello(answer: try await send(request, as: user).json(of: ServerHello.function))
        } catch  where error.lacksFunction(ServerHello.function) {
            return nil
        }
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
        // The rows come back as the server holds them after its rules (a row nothing of which
        // won is left out), so the device ends with the server's row whatever the rules did.
        let request = PostgRESTRequest(
            method: "POST",
            table: table.name,
            query: [.parameter("on_conflict", table.primaryKey), .select(table.columnNames)],
            prefer: "resolution=merge-duplicates,return=representation",
            body: try PostgRESTRowCoding.arrayBody(rows, of: table),
            announcingPokes: announcingPokes
        )
        let answer = try await send(request, as: user)
        let page = try PostgRESTRowCoding.page(answer.body.isEmpty ? Data("[]".utf8) : answer.body, of: table)
        return UpsertedRows(rows: page.rows, undecodable: page.undecodable, serverTimeMs: answer.serverTimeMs)
    }

    public func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        guard limit > 0 else { throw SyncError(.invalidRequest, "A pull of \(table.name) needs a positive limit") }
        let sequence = PostgRESTRowCoding.sequenceColumn(of: table)
        let request = PostgRESTRequest(
            method: "GET",
            table: table.name,
            query: [
                .select(table.columnNames),
                .filter(sequence, "gt", String(cursor)),
                .parameter("order", sequence + ".asc"),
                .parameter("limit", String(limit)),
            ]
        )
        let answer = try await send(request, as: user)
        if answer.body.isEmpty, answer.status == 204 {
            return PulledPage(rows: [], receivedCount: 0, lastServerSeq: nil, serverTimeMs: answer.serverTimeMs)
        }
        var page = try PostgRESTRowCoding.page(answer.body, of: table)
        page.serverTimeMs = answer.serverTimeMs
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
        let versionColumn = try table.guardedVersionColumn(setting: values).name
        let columns = try table.columns(named: returning)
        let request = PostgRESTRequest(
            method: "PATCH",
            table: table.name,
            query: [Self.key(id, of: table), .filter(versionColumn, "eq", baseVersion)]
                + extraFilters.map(PostgRESTRequest.QueryItem.filter) + [.select(columns.map(\.name))],
            prefer: "return=representation",
            body: try PostgRESTRowCoding.objectBody(values, of: table)
        )
        let answer = try await send(request, as: user)
        return try PostgRESTRowCoding.rows(answer.json(of: table.name), columns: columns, of: table.name)
    }

    public func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues]
    {
        guard !ids.isEmpty else { return [] }
        let columns = try table.columns(named: columns)
        let key =
            ids.count == 1
            ? Self.key(ids[0], of: table) : .filter(table.primaryKey, in: ids.map { $0.uuidString.lowercased() })
        let request = PostgRESTRequest(
            method: "GET",
            table: table.name,
            query: [key, .parameter("limit", String(ids.count)), .select(columns.map(\.name))]
        )
        let answer = try await send(request, as: user)
        return try PostgRESTRowCoding.rows(answer.json(of: table.name), columns: columns, of: table.name)
    }

    /// `GET /rpc/<function>?cursors=...&since=...&page_limit=...`: a read-only function, so a
    /// read replica's endpoint can serve it too.
    public func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        guard limit > 0 else { throw SyncError(.invalidRequest, "A pull needs a positive limit") }
        var query: [PostgRESTRequest.QueryItem] = [.parameter("cursors", FunctionCoding.cursorsArgument(cursors))]
        if let mark { query.append(.parameter("since", String(mark))) }
        query.append(.parameter("page_limit", String(limit)))
        let request = PostgRESTRequest(method: "GET", table: function, query: query, isFunction: true)
        let answer = try await send(request, as: user)
        return try FunctionCoding.pulledTables(answer.body, asked: cursors, since: mark, serverTimeMs: answer.serverTimeMs)
    }

    /// `id=eq.<uuid>`, lowercase as the server writes uuids.
    private static func key(_ id: UUID, of table: TableSchema) -> PostgRESTRequest.QueryItem {
        .filter(table.primaryKey, "eq", id.uuidString.lowercased())
    }

    // MARK: Sending

    /// Sends `request` for `user` and returns a successful answer; a refused token is replaced
    /// once, never in a loop.
    func send(_ request: PostgRESTRequest, as user: Credentials) async throws(SyncError) -> PostgRESTResponse {
        var request = request
        request.schemaVersion = configuration.schemaVersion
        let token = await refreshedTokens.token(for: user)
        let answer = try await exchange(request, token: token)
        if answer.isSuccess { return answer }
        guard answer.refusedToken else { throw answer.failure(for: request.table) }

        let fresh = try await freshToken()
        // The provider has nothing newer: resending would only be refused again.
        guard fresh != token else { throw answer.failure(for: request.table) }
        await refreshedTokens.remember(fresh, replacing: user)
        let retried = try await exchange(request, token: fresh)
        guard retried.isSuccess else { throw retried.failure(for: request.table) }
        return retried
    }

    private func freshToken() async throws(SyncError) -> String {
        let token: String?
        do {
            token = try await configuration.accessToken()
        } catch is CancellationError {
            throw .requestCancelled
        } catch {
            throw SyncError(.accessToken, "The access token provider failed (\(type(of: error)))")
        }
        guard let token, !token.isEmpty else {
            throw SyncError(.accessToken, "The server refused the access token and no other is available: sign in again")
        }
        return token
    }

    /// One round trip, bounded by the request timeout. Cancelling the calling task cancels the
    /// URLSession task.
    private func exchange(_ request: PostgRESTRequest, token: String) async throws(SyncError) -> PostgRESTResponse {
        let urlRequest = try request.urlRequest(
            projectURL: configuration.projectURL,
            anonKey: configuration.anonKey,
            token: token,
            timeout: configuration.requestTimeout
        )
        if Task.isCancelled { throw .requestCancelled }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await withDeadline(configuration.requestTimeout) { [session = configuration.session] in
                try await session.data(for: urlRequest)
            }
        } catch {
            throw Task.isCancelled ? .requestCancelled : SyncError(requestFailure: error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw SyncError(.decoding, "The answer for \(request.table) was not an HTTP response")
        }
        return PostgRESTResponse(
            status: http.statusCode, body: data,
            serverTimeMs: http.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.millisecondsSince1970))
    }
}

/// Runs `operation`, cancelling it once `seconds` have passed and failing as a timeout.
/// URLRequest's own timeout only bounds the wait between bytes, and is not applied at all by
/// every URLProtocol; this bounds the whole exchange.
private func withDeadline<Value: Sendable>(
    _ seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask(operation: operation)
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw URLError(.timedOut)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
