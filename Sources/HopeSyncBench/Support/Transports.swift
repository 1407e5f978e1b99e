import Foundation
@_spi(Transport) import HopeSync

/// One request a ``WatchedTransport`` passed on, told when it came back.
struct WatchedRequest: Sendable {
    enum Kind: Sendable {
        /// `pullTables`: one request of the pull function, every table's page in it.
        case upsert, pull, pullTables, guardedUpdate, fetch
    }

    let kind: Kind
    let table: TableSchema
    let user: Credentials
    /// The rows upserted, or a guarded update's values (of row `id`).
    let sent: [ColumnValues]
    let id: UUID?
    /// Uptimes in nanoseconds: passed on, and back.
    let start: UInt64
    let end: UInt64
    /// How many rows the answer held (a pull's received count), or why it failed.
    let outcome: Result<Int, SyncError>
    /// A pull function's answer that was the mark alone: nothing changed, no page, no scope list.
    var idleAnswer = false
    /// An upsert's answer: the ids of the rows it returned (a row it left out was not changed).
    var answered: Set<String> = []

    var seconds: Double { Double(end - start) / 1e9 }
}

/// Passes every request on to `base` and tells `watch` of each one as it comes back: what
/// bench puts between an engine and its server to count, time or log the requests.
struct WatchedTransport: SyncTransport {
    let base: any SyncTransport
    /// Whether requests to the server's sync functions pass on (the one-request protocol); when
    /// false (the default) they fail as on a server without them, and the engine syncs table by
    /// table (the protocol before them), so one run can measure both against the same server.
    var usesFunctions = false
    let watch: @Sendable (WatchedRequest) -> Void

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try await watched(.upsert, table, user, sent: rows, count: \.rows.count, answered: Self.ids(in: table)) {
            () async throws(SyncError) in
            try await base.upsert(rows, into: table, as: user)
        }
    }

    /// The ids of the rows an upsert's answer holds.
    private static func ids(in table: TableSchema) -> (UpsertedRows) -> Set<String> {
        { answer in Set(answer.rows.compactMap { $0[table.primaryKey]?.text }) }
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        try await watched(.pull, table, user, count: \.receivedCount) { () async throws(SyncError) in
            try await base.pull(table, after: cursor, limit: limit, as: user)
        }
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        try await watched(.guardedUpdate, table, user, sent: [values], id: id, count: \.count) { () async throws(SyncError) in
            try await base.guardedUpdate(
                table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
        }
    }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
        try await watched(.fetch, table, user, count: \.count) { () async throws(SyncError) in
            try await base.fetch(table, ids: ids, columns: columns, as: user)
        }
    }

    func pull(_ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials) async throws(SyncError)
        -> PulledTables
    {
        guard usesFunctions, let first = cursors.own.first else { throw .lacksFunction(function) }
        return try await watched(.pullTables, first.table, user, count: \.receivedCount, idle: \.isIdleAnswer) {
            () async throws(SyncError) in
            try await base.pull(cursors, since: mark, limit: limit, function: function, as: user)
        }
    }

    private func watched<Answer>(
        _ kind: WatchedRequest.Kind, _ table: TableSchema, _ user: Credentials, sent: [ColumnValues] = [], id: UUID? = nil,
        count: (Answer) -> Int, idle: (Answer) -> Bool = { _ in false }, answered: (Answer) -> Set<String> = { _ in [] },
        _ request: () async throws(SyncError) -> Answer
    ) async throws(SyncError) -> Answer {
        let start = DispatchTime.now().uptimeNanoseconds
        func report(_ outcome: Result<Int, SyncError>, idle: Bool = false, answered: Set<String> = []) {
            watch(
                WatchedRequest(
                    kind: kind, table: table, user: user, sent: sent, id: id, start: start, end: DispatchTime.now().uptimeNanoseconds,
                    outcome: outcome, idleAnswer: idle, answered: answered))
        }
        do throws(SyncError) {
            let answer = try await request()
            report(.success(count(answer)), idle: idle(answer), answered: answered(answer))
            return answer
        } catch {
            report(.failure(error))
            throw error
        }
    }
}

/// One table's pages, built before the clock starts and served from memory by cursor, so that a
/// pull measures the device's work alone. Every other table is empty; writes are dropped.
struct ServedPages: SyncTransport {
    let table: String
    private let pages: [Int64: PulledPage]

    /// `pages` in order, each served after the last server_seq of the one before.
    init(_ pages: [PulledPage], of table: TableSchema) {
        var byCursor: [Int64: PulledPage] = [:]
        var cursor: Int64 = 0
        for page in pages {
            byCursor[cursor] = page
            cursor = page.lastServerSeq ?? cursor
        }
        self.table = table.name
        self.pages = byCursor
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        guard table.name == self.table, let page = pages[cursor] else { return PulledPage(rows: [], receivedCount: 0, lastServerSeq: nil) }
        return page
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        UpsertedRows(rows: [])
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] { [] }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] { [] }
}

extension SyncTransport {
    /// Every page of `table` the user may read, from the start, the last one short.
    func pullAll(_ table: TableSchema, pageSize: Int = SyncConfiguration.serverRowCap, as user: Credentials) async throws -> [PulledPage] {
        var pages: [PulledPage] = []
        var after: Int64 = 0
        while true {
            let page = try await pull(table, after: after, limit: pageSize, as: user)
            pages.append(page)
            guard let last = page.lastServerSeq, page.receivedCount == pageSize else { return pages }
            after = last
        }
    }
}

extension PulledTables {
    /// The rows of every table's page, as a table pull's received count counts them.
    var receivedCount: Int { pages.values.reduce(0) { $0 + $1.receivedCount } }

    /// The mark alone: no page, and no scope list (which every other answer has when asked).
    var isIdleAnswer: Bool { pages.isEmpty && scopes == nil }
}
