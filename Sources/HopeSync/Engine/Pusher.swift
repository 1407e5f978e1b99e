import Foundation
import HopeSyncModel

/// Sends dirty rows in batches. A batch refused for some rows' sake is split until they are
/// isolated: a 4xx row goes to the rejected list at once; a row the server fails alone with a
/// 5xx while others of its table land goes there too (with the server's error, to retry or
/// dismiss), so one bad row never holds the rest. A transient failure (503, a timeout, a
/// deadlock, the network), or a 5xx that every row meets alike, keeps everything queued. A table
/// the server lacks a column of (schema drift) is passed over; the others still go.
///
/// Every row the server takes comes back as the server holds it and replaces the local row
/// (see ``SyncStore/settlePushed(_:server:serverTimeMs:in:)``); a row the server left unchanged
/// (nothing of it won) is fetched, so the device ends with the server's row either way.
struct Pusher {
    let store: SyncStore
    let transport: any SyncTransport
    let credentials: Credentials
    let batchSize: Int
    /// Per table, the rows the server failed alone with a 5xx and for how many passes running:
    /// the engine keeps it from pass to pass (in memory: a restart gives the server a fresh chance).
    var failingAlone: [String: [String: Int]] = [:]
    /// The tables to push; nil means every table.
    var tables: [TableSchema]? = nil
    /// Set when this device announces its pushes itself (the server then skips its pokes).
    var announcer: PushAnnouncer? = nil
    /// Tables held back in this pass because the server refused a claim as too far past its
    /// clock (22008): the device's clock was off. Once a pull has told the store the server's
    /// time, their claims are made again and they go once more (`SyncEngine`).
    private(set) var refusedForTheClock: [TableSchema] = []
    /// Set for that second attempt: a refusal then is the rows' own, and sets them aside.
    var clockRefusalIsTheRows = false

    /// Pushes every table; returns the schema drift refusals of the tables it passed over. A
    /// table the server fails goes on being retried; the other tables still go, and the first
    /// failure is thrown once they have. The exception: once a table of a scope did not land,
    /// the scope's later tables wait for the next pass (or the clock's second attempt), since
    /// the server would refuse their rows for its sake (a task whose new list failed with a 503
    /// is not the editor's to write yet) and they would go to the rejected list for nothing.
    mutating func push(into report: inout SyncReport) async throws(SyncError) -> [ServerError] {
        var drifts: [ServerError] = []
        var failure: SyncError?
        var waitingScopes: Set<String> = []
        for table in tables ?? store.schema.pushOrder {
            let scope = table.scope?.scopeTable
            if let scope, waitingScopes.contains(scope) {
                if refusedForTheClock.contains(where: { $0.scope?.scopeTable == scope }) { refusedForTheClock.append(table) }
                continue
            }
            do {
                try await push(table, into: &report)
                continue
            } catch let error where error.refusesThisBuild || error.writesARetiredColumn {
                // The floor's (or a retired column's, which only a build below it writes): the
                // pass decides; no other table is sent.
                throw error
            } catch let error where error.refusesTheClock && !clockRefusalIsTheRows {
                refusedForTheClock.append(table)
            } catch let error where error.serverError.flatMap(SchemaDrift.init) != nil {
                drifts.append(error.serverError!)
            } catch let error where error.code == .server {
                failure = failure ?? error
            }
            if let scope { waitingScopes.insert(scope) }
        }
        if let failure { throw failure }
        return drifts
    }

    private mutating func push(_ table: TableSchema, into report: inout SyncReport) async throws(SyncError) {
        var after: Int64 = 0
        while true {
            let batch = try await store.onWriter { [after, batchSize] store throws(SyncError) in
                try store.dirtyRows(in: table, after: after, limit: batchSize)
            }
            guard let last = batch.last else { break }
            after = last.rowID
            var outcome = Outcome()
            try await send(batch, table, &report, &outcome)
            try await settleOmitted(outcome.omitted, table)
            if let failure = outcome.serverFailures.first {
                // Failing alone while others landed, or alone pass after pass: the rows' own
                // fault. Otherwise the server's, and everything stays queued.
                let previous = failingAlone[table.name] ?? [:]
                let ids = outcome.serverFailures.map { $0.row.values[ReservedColumn.id]?.text ?? "" }
                let counts = Dictionary(ids.map { ($0, (previous[$0] ?? 0) + 1) }, uniquingKeysWith: max)
                failingAlone[table.name] = counts
                guard outcome.landed > 0 || counts.values.min() ?? 0 >= Self.passesBeforeSettingAside else {
                    throw failure.error
                }
                for (row, error) in outcome.serverFailures {
                    try store.reject(row.values, in: table, error: error.serverError!)
                    report.rejected += 1
                }
            }
            if batch.count < batchSize { break }
        }
        failingAlone[table.name] = nil // every row of the table landed or went aside
    }

    /// How many passes running a row may fail alone with a 5xx before it goes aside.
    static let passesBeforeSettingAside = 3

    /// Rows fetched again at most per request (the ids go in the URL).
    static let fetchBatchSize = 100

    private struct Outcome {
        var landed = 0
        var serverFailures: [(row: SyncStore.DirtyRow, error: SyncError)] = []
        /// Rows the server took but left as they were (nothing of them won): their server copy
        /// is fetched.
        var omitted: [SyncStore.DirtyRow] = []
    }

    private func send(_ rows: [SyncStore.DirtyRow], _ table: TableSchema, _ report: inout SyncReport, _ outcome: inout Outcome)
        async throws(SyncError)
    {
        do {
            let answer: UpsertedRows
            if let announcer, announcer.isAnnouncing {
                answer = try await transport.upsert(rows.map(\.sent), into: table, as: credentials, announcingPokes: true)
                announcer.announce(answer.rows, of: table)
            } else {
                // The plain request: a transport that wraps another sees it as it always has.
                answer = try await transport.upsert(rows.map(\.sent), into: table, as: credentials)
            }
            try await store.onWriter { store throws(SyncError) in
                try store.settlePushed(rows.map(\.values), server: answer.rows, serverTimeMs: answer.serverTimeMs, in: table)
            }
            let answered = Set(answer.rows.map { $0[table.primaryKey] } + answer.undecodable.map { $0.key.map(SyncValue.text) })
            outcome.omitted += rows.filter { !answered.contains($0.values[table.primaryKey]) }
            report.pushed += rows.count
            report.undecodable += answer.undecodable
            outcome.landed += rows.count
        } catch let error where error.refusesTheClock && !clockRefusalIsTheRows {
            throw error
        } catch let error where error.isRowsFault || error.isRowsServerFailure {
            guard rows.count > 1 else {
                if error.isRowsFault {
                    try await store.onWriter { store throws(SyncError) in
                        try store.reject(rows[0].values, in: table, error: error.serverError!)
                    }
                    report.rejected += 1
                } else {
                    outcome.serverFailures.append((rows[0], error))
                }
                return
            }
            let middle = rows.count / 2
            try await send(Array(rows[..<middle]), table, &report, &outcome)
            try await send(Array(rows[middle...]), table, &report, &outcome)
        }
    }

    /// The server's copy of rows it left unchanged, laid over the local ones.
    private func settleOmitted(_ rows: [SyncStore.DirtyRow], _ table: TableSchema) async throws(SyncError) {
        for start in stride(from: 0, to: rows.count, by: Self.fetchBatchSize) {
            let chunk = rows[start..<min(start + Self.fetchBatchSize, rows.count)].map(\.values)
            let ids = chunk.compactMap { $0[table.primaryKey]?.text.flatMap(UUID.init(text:)) }
            let copies = try await transport.fetch(table, ids: ids, columns: table.columnNames, as: credentials)
            try await store.onWriter { store throws(SyncError) in
                // A version table's row left unchanged was there already (see the trigger).
                if table.conflict.versionColumn != nil { try store.keepValuesNotTaken(chunk, server: copies, in: table) }
                try store.settlePushed(chunk, server: copies, serverTimeMs: nil, in: table)
            }
        }
    }
}
