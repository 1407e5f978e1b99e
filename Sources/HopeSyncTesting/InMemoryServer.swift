import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel

/// A server in memory with exactly the real server's rules: last writer wins on
/// (updated_ms, device_id), one global sequence stamping every accepted row, rows owned by their
/// user_id, the one-open-row rule, and the version bump of version tables. Given a clock, it also
/// refuses claims more than a day past it (22008) and tells devices its time, as the real one
/// does; without one it has neither (tests whose devices' clocks are made up). Its test controls
/// (see InMemoryServer+Controls.swift) make the failures the real one can have.
public actor InMemoryServer {
    /// The server's tables as its migrations left them (InMemoryServer+Lifecycle.swift).
    var tables: [String: TableSchema]
    /// The server's clock, milliseconds since 1970.
    let clock: (@Sendable () -> Int64)?
    var stores: [String: [String: StoredRow]] = [:]
    var sequence: Int64 = 0
    var versionClock: Int64 = 0
    /// Per owner, the mark the write triggers move (public.sync_marks), and the marks of held
    /// (uncommitted) writes, which move on their commit.
    var marks: [String: Int64] = [:]
    var heldMarks: [String: Int64] = [:]
    var markCounter: Int64 = 0
    /// Whether the server has the sync functions (a server whose SQL predates them has not).
    var hasFunctions = true
    /// Sharing's exits and the users a request reached (InMemoryServer+Access.swift).
    var sharing = SharingState()
    /// `oldest_writer` and the devices' hellos (InMemoryServer+WriterFloor.swift).
    var writerFloor = WriterFloor()
    /// The step of the column lifecycle the server's migrations reached (decision 0052).
    var lifecycle = LifecycleStep(tables: [])

    // Test controls.
    var isOnline = true
    var pendingFailures: [SyncError] = []
    var answersToLose = 0
    var holdsNextWrite = false
    var heldSequences: Set<Int64> = []
    var droppedColumns: [String: Set<String>] = [:]
    var refusals: [Refusal] = []
    var undecodable: [String: [UndecodableEntry]] = [:]
    var nextVersionStamps: [String] = []
    var hiddenRows: [String: Set<String>] = [:]
    var updateDeniedRows: [String: Set<String>] = [:]
    public private(set) var requestCount = 0
    /// Every request, in order, as the server received it.
    public internal(set) var requestLog: [InMemoryRequest] = []

    struct StoredRow {
        var values: [String: SyncValue]
        var seq: Int64
    }

    struct Refusal {
        let table: String
        let matches: @Sendable (ColumnValues) -> Bool
        let error: ServerError
    }

    struct UndecodableEntry {
        let owner: String
        let seq: Int64
        let key: String
    }

    public init(tables: [TableSchema], clock: (@Sendable () -> Int64)? = nil) {
        self.tables = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0) })
        self.clock = clock
    }

    // MARK: SyncTransport

    @discardableResult
    @_spi(Transport) public func upsert(_ rows: [ColumnValues], into requested: TableSchema, as user: Credentials) async throws(SyncError)
        -> UpsertedRows
    {
        requestLog.append(.upsert(table: requested.name, rowCount: rows.count))
        try admit()
        try checkRetired(rows.first?.columns ?? [], requested.name)
        try checkWriter()
        let written = try merge(rows, into: requested, as: user).written
        try answer()
        return UpsertedRows(rows: written, serverTimeMs: clock?())
    }

    /// Runs `rows` through the triggers' rules: the rows written, each as its own write left it
    /// (as `return=representation` answers; a row that lost is left out), and every row sent as
    /// the server holds it after the request.
    func merge(_ rows: [ColumnValues], into requested: TableSchema, as user: Credentials) throws(SyncError) -> (
        written: [ColumnValues], held: [ColumnValues]
    ) {
        // The server's own definition decides, as the real one's catalog does.
        let table = tables[requested.name] ?? requested
        let owner = user.userID.lowercasedString
        try validate(rows, table, owner: owner)
        var accepted: [Int64] = []
        var written: [ColumnValues] = []
        var keys: [String] = []
        let saved = table.scope == nil ? nil : savedState()
        for row in rows {
            let values = Dictionary(uniqueKeysWithValues: zip(row.columns, row.values).filter { $0.0 != ReservedColumn.serverSeq })
            let taken = try upsertShared(values, into: table, as: owner, restoring: saved)
            accepted += taken
            let key = values[ReservedColumn.id]?.text ?? ""
            keys.append(key)
            if !taken.isEmpty, let stored = stores[table.name]?[key] {
                written.append(ColumnValues(columns: requested.columnNames, values: requested.columnNames.map { stored.value($0) }))
            }
        }
        if holdsNextWrite {
            holdsNextWrite = false
            heldSequences.formUnion(accepted)
        }
        if !accepted.isEmpty {
            let held = !heldSequences.isDisjoint(with: accepted)
            moveMark(of: owner, held: held)
            markReached(held: held)
        }
        let held = keys.compactMap { key in
            stores[table.name]?[key].map { stored in
                ColumnValues(columns: requested.columnNames, values: requested.columnNames.map { stored.value($0) })
            }
        }
        return (written, held)
    }

    @_spi(Transport) public func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError)
        -> PulledPage
    {
        requestLog.append(.pull(table: table.name, after: cursor))
        try admit()
        let result = try page(of: table, after: cursor, limit: limit, owner: user.userID.lowercasedString)
        try answer()
        return result
    }

    /// The committed rows of `table` past `cursor` the owner reads (row-level security), in
    /// sequence order, at most `limit`.
    func page(of table: TableSchema, after cursor: Int64, limit: Int, owner: String) throws(SyncError) -> PulledPage {
        if let missing = table.columnNames.first(where: { droppedColumns[table.name]?.contains($0) == true }) {
            throw Self.refusal(400, "42703", "column \(table.name).\(missing) does not exist")
        }
        let access = access(of: owner)
        let server = tables[table.name] ?? table
        return streamPage(of: table, after: cursor, limit: limit, rows: { access.reads($0, server) }, undecodableOf: owner)
    }

    /// The committed rows of `table` past `cursor` that `visible` lets through, the `exits`
    /// past it, and the owner's undecodable rows, in sequence order, at most `limit` together.
    func streamPage(
        of table: TableSchema, after cursor: Int64, limit: Int, rows visible: ([String: SyncValue]) -> Bool, exits: [Exit] = [],
        undecodableOf owner: String?
    ) -> PulledPage {
        // Exact ordering: one owner's rows commit in sequence order, so nothing past a held
        // (uncommitted) row of theirs is visible yet.
        let horizon = table.ordering == .exact ? heldSequences.min() ?? .max : .max
        var entries: [(seq: Int64, row: ColumnValues?, broken: UndecodableEntry?, exit: Exit?)] = []
        let hidden = hiddenRows[table.name] ?? []
        for (key, row) in stores[table.name, default: [:]]
        where row.seq > cursor && row.seq < horizon && !heldSequences.contains(row.seq) && !hidden.contains(key) && visible(row.values) {
            entries.append(
                (
                    row.seq,
                    ColumnValues(
                        columns: table.columnNames,
                        values: table.columnNames.map { name in
                            name == ReservedColumn.serverSeq ? .int(row.seq) : row.values[name] ?? .null
                        }), nil, nil
                ))
        }
        for entry in undecodable[table.name, default: []] where entry.owner == owner && entry.seq > cursor && entry.seq < horizon {
            entries.append((entry.seq, nil, entry, nil))
        }
        for exit in exits where exit.seq > cursor && exit.seq < horizon && !heldSequences.contains(exit.seq) {
            entries.append((exit.seq, nil, nil, exit))
        }
        let page = entries.sorted { $0.seq < $1.seq }.prefix(limit)
        return PulledPage(
            rows: page.compactMap(\.row),
            undecodable: page.compactMap(\.broken).map {
                UndecodableRow(table: table.name, key: $0.key, serverSeq: $0.seq, reason: "the server sent a value this client cannot read")
            },
            exits: page.compactMap(\.exit).map { PulledExit(id: $0.rowID, serverSeq: $0.seq) },
            receivedCount: page.count,
            lastServerSeq: page.last?.seq,
            serverTimeMs: clock?()
        )
    }

    @_spi(Transport) public func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        requestLog.append(
            .guardedUpdate(
                GuardedUpdateRequest(
                    table: table.name, id: id, baseVersion: baseVersion, values: values, filters: extraFilters, returning: returning
                )))
        try admit()
        try checkRetired(values.columns, table.name)
        try checkWriter()
        try checkColumns(values.columns + returning, table)
        let key = id.lowercasedString
        let access = access(of: user.userID.lowercasedString)
        guard let versionColumn = table.conflict.versionColumn,
            var row = stores[table.name]?[key], access.writes(row.values, tables[table.name] ?? table),
            hiddenRows[table.name]?.contains(key) != true, updateDeniedRows[table.name]?.contains(key) != true,
            row.values[versionColumn].map({ $0.versionText ?? "" }) == baseVersion,
            extraFilters.allSatisfy({ $0.matches(row.values[$0.column] ?? .null) })
        else {
            try answer()
            return []
        }
        for (column, value) in zip(values.columns, values.values) where column != ReservedColumn.id && column != ReservedColumn.owner {
            row.values[column] = value
        }
        let saved = table.scope == nil ? nil : savedState()
        let old = stores[table.name]![key]!.values
        row.values = keepingRenamedPairs(row.values, over: old, in: tables[table.name] ?? table)
        stores[table.name]![key] = row
        let accepted = writeShared(row.values, into: table, over: old, by: access.user)
        if !accepted.isEmpty, let saved {
            do throws(SyncError) {
                try checkUpdate(key, in: table, from: old, access)
            } catch {
                restore(saved)
                throw error
            }
        }
        if !accepted.isEmpty {
            moveMark(of: access.user, held: false)
            markReached(held: false)
        }
        let stored = stores[table.name]![key]!
        try answer()
        return accepted.isEmpty ? [] : [ColumnValues(columns: returning, values: returning.map { stored.value($0) })]
    }

    @_spi(Transport) public func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError)
        -> [ColumnValues]
    {
        for id in ids { requestLog.append(.fetch(table: table.name, id: id, columns: columns)) }
        try admit()
        try checkColumns(columns, table)
        let access = access(of: user.userID.lowercasedString)
        let visible = ids.compactMap { id -> ColumnValues? in
            guard let row = stores[table.name]?[id.lowercasedString], access.reads(row.values, tables[table.name] ?? table),
                !heldSequences.contains(row.seq), hiddenRows[table.name]?.contains(id.lowercasedString) != true
            else { return nil }
            return ColumnValues(columns: columns, values: columns.map { row.value($0) })
        }
        try answer()
        return visible
    }

    // MARK: Requests

    func admit() throws(SyncError) {
        requestCount += 1
        guard isOnline else { throw SyncError(.connectivity, "The server cannot be reached.") }
        if !pendingFailures.isEmpty { throw pendingFailures.removeFirst() }
    }

    /// The request ran; its answer may still be lost on the way back.
    func answer() throws(SyncError) {
        guard answersToLose > 0 else { return }
        answersToLose -= 1
        throw SyncError(.connectivity, "The connection dropped before the answer arrived.")
    }

    static func refusal(_ status: Int, _ code: String, _ message: String, details: String? = nil) -> SyncError {
        let error = ServerError(status: status, code: code, message: message, details: details)
        return SyncError(.server, "The server refused the request (\(status) \(code)).", serverError: error)
    }
}

extension InMemoryServer.StoredRow {
    func value(_ column: String) -> SyncValue {
        column == ReservedColumn.serverSeq ? .int(seq) : values[column] ?? .null
    }
}

/// The server is a transport: engines and clients sync through it (`@_spi(Transport) import HopeSync`).
@_spi(Transport) extension InMemoryServer: SyncTransport {}
