import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Pulled pages applied in one write transaction of the store (``SyncStore/applyPulled(_:)``):
/// each page's rows with the server's comparison as it comes, then once, at the commit, each
/// table's cursor moved past its pages, the newest stamp given to the clock and the open-row
/// rule kept. What outlives a page is small (a cursor, a stamp, a flag, the rows that could not
/// be applied), so one transaction can take many pages while memory holds only the page at hand.
struct PullTransaction {
    /// Rows after which the transaction commits though more pages are ready. Every commit writes
    /// each database page the transaction dirtied (random uuid keys dirty most of a key index's
    /// leaves in every batch), so a first sync is faster in fewer commits; the budget bounds how
    /// long observers wait to see rows and how far the WAL grows. A local write never waits for
    /// it: the transaction commits after the page at hand as soon as one waits.
    static let rowBudget = 50_000

    /// A table's statement and column places, found at its first page, and what the commit
    /// needs of its pages.
    private struct TablePages {
        let table: TableSchema
        let sql: TableSQL
        let names: [String]
        let stampIndex: Int?
        let rule: (end: Int, deleted: Int?)?
        var openArrived = false

        init(_ table: TableSchema, _ sql: TableSQL) {
            self.table = table
            self.sql = sql
            names = table.columnNames
            stampIndex = sql.index(of: ReservedColumn.updatedMs)
            rule = table.openRowRule.flatMap { rule in
                sql.index(of: rule.end).map { (end: $0, deleted: sql.index(of: ReservedColumn.deletedMs)) }
            }
        }
    }

    /// One table in one stream: the own stream (`scope` nil) or a scope's.
    private struct Stream: Hashable {
        let scope: String?
        let table: String
    }

    private let store: SyncStore
    private let database: Database
    private var tables: [String: TablePages] = [:]
    /// The highest server_seq of each stream's pages: where its cursor moves at the commit.
    private var streams: [Stream: Int64] = [:]
    private var newestStamp: Int64 = 0
    private(set) var applied = SyncStore.AppliedRows()
    private var rowCount = 0

    fileprivate init(store: SyncStore, database: Database) {
        self.store = store
        self.database = database
    }

    /// Whether to commit now though more pages are ready: the transaction took its budget of
    /// rows, or another write waits for the writer. The caller stops giving it pages.
    var shouldCommit: Bool { rowCount >= Self.rowBudget || store.pool.hasWaitingWriters }

    /// The server said its time with an answer that may hold no page (an idle pass's mark).
    func observeServerTime(_ serverMs: Int64?) throws {
        try store.observeServerTime(serverMs, database)
    }

    /// Applies a page of `table` in the own stream, or in the stream of `scope`. A row SQLite
    /// refuses is reported, not applied, and does not stop the others.
    mutating func apply(_ page: PulledPage, to table: TableSchema, scope: String? = nil) throws {
        var pages = try tables[table.name] ?? TablePages(table, store.tableSQL(table.name))
        let (sql, names) = (pages.sql, pages.names)
        try store.observeServerTime(page.serverTimeMs, database)
        let statement = try database.cachedStatement(sql.applyServerRow)
        let stream = Stream(scope: scope, table: table.name)
        streams[stream] = max(streams[stream] ?? 0, page.lastServerSeq ?? 0)
        applied.undecodable += page.undecodable
        for row in page.rows {
            let values = row.columns == names ? row.values : names.map { row[$0] ?? .null }
            do {
                if try store.applyServerRow(values, sql, statement, database) { applied.applied += 1 }
            } catch {
                applied.undecodable.append(
                    UndecodableRow(
                        table: table.name, key: values.first.flatMap(\.text),
                        serverSeq: row[ReservedColumn.serverSeq].flatMap(\.int),
                        reason: "the local database refused it: \(error)"
                    ))
                continue
            }
            if let index = pages.stampIndex, case .int(let stamp) = values[index] { newestStamp = max(newestStamp, stamp) }
            if let rule = pages.rule, OpenRowRule.isOpen(end: values[rule.end], deleted: rule.deleted.map { values[$0] }) {
                pages.openArrived = true
            }
        }
        rowCount += page.rows.count
        try store.guardedWrites.restoreQueuedWrites(over: page.rows, sql, database)
        exits += page.exits.map { (table, scope, $0) }
        tables[table.name] = pages
    }

    /// Rows that left a stream, applied once the answer's pages are (``applyExits()``): a row
    /// that moved to another stream the user reads arrives in that stream's page of the same
    /// answer, and its copy is then newer than the exit.
    private var exits: [(table: TableSchema, scope: String?, exit: PulledExit)] = []

    /// Removes each copy an exit of the answer at hand names that is still in the stream it
    /// left and older than the exit; a write of it the server never accepted goes to the
    /// rejected list (the row moved out of the user's reach).
    mutating func applyExits() throws {
        defer { exits.removeAll() }
        for (table, scope, exit) in exits {
            guard let column = table.scope?.column else { continue }
            let inStream = scope == nil ? "\(quoted(column)) IS NULL" : "\(quoted(column)) = ?"
            let arguments: [DatabaseValue] = [.text(exit.id)] + (scope.map { [.text($0)] } ?? []) + [.integer(exit.serverSeq)]
            let removed = try store.revokeRows(
                of: table, where: "\(quoted(table.primaryKey)) = ? AND \(inStream) AND server_seq < ?", arguments,
                reason: "This row of \(table.name) moved where you cannot reach it before this change was accepted.", database)
            applied.applied += removed
        }
    }

    /// The scopes the user belongs to as of an answer's snapshot: each known scope the answer
    /// does not list has ended (its rows, their unaccepted edits and its cursors go, in this
    /// transaction); each listed one is kept with its role, still arriving while `arriving`
    /// names it. A scope of a table this build does not know is passed over.
    mutating func list(_ scopes: [String: PulledScope], arriving: Set<String>) throws {
        let known = try store.knownScopes(database)
        var ended = known.filter { scopes[$0.key] == nil }.mapValues(\.scopeTable)
        // A scope row the server took from this device (clean) but no answer listed: made and
        // deleted, or shared and left, between two pulls. It ends as a listed one would.
        // Only scope rows no pull has listed are read (a known scope is settled above).
        for table in store.schema.tables where table.scope?.kind == .scope {
            let key = quoted(table.primaryKey)
            let unlisted = try database.fetchAll(
                """
                SELECT \(key) FROM \(quoted(table.name))
                WHERE _dirty = \(DirtyState.clean.sql) AND \(key) NOT IN (SELECT scope_id FROM _sync_scopes)
                """
            ) { $0.text(at: 0) ?? "" }.filter { scopes[$0] == nil }
            for id in unlisted { ended[id] = table.name }
        }
        for (id, scopeTable) in ended.sorted(by: { $0.key < $1.key }) {
            applied.applied += try store.endScope(id, scopeTable: scopeTable, database)
            streams = streams.filter { $0.key.scope != id }
        }
        for (id, scope) in scopes.sorted(by: { $0.key < $1.key }) {
            guard let scopeTable = known[id]?.scopeTable ?? store.schema.scopeTable(holding: scope.pages.keys) else { continue }
            try database.execute(
                """
                INSERT INTO _sync_scopes (scope_id, scope_table, role, arriving) VALUES (?, ?, ?, ?)
                ON CONFLICT (scope_id) DO UPDATE SET role = excluded.role, arriving = excluded.arriving
                """, [.text(id), .text(scopeTable), .text(scope.role.rawValue), .integer(arriving.contains(id) ? 1 : 0)])
        }
    }

    /// Moves each table's cursor past its pages and keeps the open-row rule; returns whether
    /// that wrote a local row (a server close of this device's open row).
    fileprivate func finish() throws -> Bool {
        let writer = StoreWriter(reader: StoreReader(store: store, database: database))
        // A cursor never moves back (a lookback's window starts behind it).
        for (stream, serverSeq) in streams.sorted(by: { ($0.key.scope ?? "", $0.key.table) < ($1.key.scope ?? "", $1.key.table) }) {
            if let scope = stream.scope {
                try database.execute(
                    """
                    INSERT INTO _sync_stream_cursors (scope_id, table_name, server_seq) VALUES (?, ?, ?) \
                    ON CONFLICT (scope_id, table_name) DO UPDATE SET server_seq = max(server_seq, excluded.server_seq)
                    """,
                    [.text(scope), .text(stream.table), .integer(serverSeq)])
            } else {
                try database.execute(
                    """
                    INSERT INTO _sync_cursors (table_name, server_seq) VALUES (?, ?) \
                    ON CONFLICT (table_name) DO UPDATE SET server_seq = max(server_seq, excluded.server_seq)
                    """,
                    [.text(stream.table), .integer(serverSeq)])
            }
        }
        for pages in tables.values.sorted(by: { $0.table.name < $1.table.name }) where pages.openArrived {
            try writer.enforceOpenRowRule(pages.sql, owner: store.userID)
        }
        store.state.clock.observe(newestStamp, wallMs: store.state.wallClock())
        return writer.wroteLocally
    }
}

extension SyncStore {
    /// What a pull applied: the rows that changed something (rows removed by an exit or an
    /// ended scope included), and those it could not apply.
    struct AppliedRows {
        var applied = 0
        var undecodable: [UndecodableRow] = []
    }

    /// Applies pulled pages in one transaction: `body` gives them to the transaction, which then
    /// moves each table's cursor past its pages. Observers see the rows once it commits.
    func applyPulled(_ body: (inout PullTransaction) throws -> Void) throws(SyncError) -> AppliedRows {
        let (applied, wroteLocally) = try writeTransaction { database in
            var transaction = PullTransaction(store: self, database: database)
            try body(&transaction)
            return (transaction.applied, try transaction.finish())
        }
        if applied.applied > 0 || wroteLocally { state.notifyObservers() }
        if wroteLocally { state.localWriteHandler?() }
        return applied
    }

    /// Applies one page of `table`, and moves its cursor past it, in one transaction.
    func apply(_ page: PulledPage, to table: TableSchema) throws(SyncError) -> AppliedRows {
        try applyPulled { try $0.apply(page, to: table) }
    }
}
