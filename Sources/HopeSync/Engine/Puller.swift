import Foundation
import HopeSyncModel

/// Walks each table's rows by server_seq from its cursor (less the lookback), applying its pages
/// with the cursor in one transaction while they keep arriving (up to ``PullTransaction``'s
/// budget). Pages are fetched ahead of the apply, so the network (and the reading of JSON)
/// overlaps the local writes.
struct Puller {
    let store: SyncStore
    let transport: any SyncTransport
    let credentials: Credentials
    let pageSize: Int
    let lookback: Int64?
    /// The tables to pull; nil means every table.
    var tables: [TableSchema]? = nil

    /// Pulls every table; returns the schema drift of the tables it had to pass over (each
    /// missing column, found by asking again without the ones already known missing).
    func pull(into report: inout SyncReport) async throws(SyncError) -> [ServerError] {
        var drifts: [ServerError] = []
        for table in tables ?? store.schema.tables {
            do {
                try await pull(table, into: &report)
            } catch let error where error.serverError.flatMap(SchemaDrift.init) != nil {
                drifts += await missingColumns(of: table, first: error.serverError!)
            }
        }
        return drifts
    }

    private func missingColumns(of table: TableSchema, first: ServerError) async -> [ServerError] {
        var found = [first]
        while let column = found.last.flatMap(SchemaDrift.init)?.column, found.count < table.columns.count {
            let missing = Set(found.compactMap { SchemaDrift($0)?.column })
            let rest = TableSchema(
                name: table.name, columns: table.columns.filter { !missing.contains($0.name) },
                primaryKey: table.primaryKey, conflict: table.conflict, ordering: table.ordering)
            do {
                _ = try await transport.pull(rest, after: 0, limit: 1, as: credentials)
                break
            } catch {
                guard let server = error.serverError, let nextColumn = SchemaDrift(server)?.column,
                    nextColumn != column, !missing.contains(nextColumn)
                else { break }
                found.append(server)
            }
        }
        return found
    }

    /// Pages fetched ahead of the apply at most: 8,000 rows of memory whatever the table's size.
    static let pagesAhead = 8

    /// Where a pull of `table` starts: at its cursor (exact ordering), or the lookback's window
    /// behind it (`lookback` overrides the schema's).
    static func start(of table: TableSchema, at cursor: Int64, lookback: Int64?) -> Int64 {
        switch table.ordering {
        case .exact: cursor
        case .lookback(let rows): max(0, cursor - (lookback ?? rows))
        }
    }

    private func pull(_ table: TableSchema, into report: inout SyncReport) async throws(SyncError) {
        let start = Self.start(
            of: table, at: try await store.onWriter { store throws(SyncError) in try store.cursor(for: table) }, lookback: lookback)
        // What was applied counts, whether or not a later page fails.
        var applied = SyncReport()
        defer {
            report.pulled += applied.pulled
            report.undecodable += applied.undecodable
        }
        try await PageBuffer<PulledPage>.fetchingAhead(capacity: Self.pagesAhead) {
            [transport, credentials, pageSize] buffer throws(SyncError) in
            var after = start
            while true {
                let page = try await transport.pull(table, after: after, limit: pageSize, as: credentials)
                await buffer.put(page)
                guard page.receivedCount >= pageSize, let last = page.lastServerSeq, last > after else { return }
                after = last
                if Task.isCancelled { throw SyncError(.cancelled, "The pull was cancelled.") }
            }
        } apply: { nextReady throws(SyncError) in
            // One transaction while pages are ready (see PullTransaction).
            let rows = try await store.onWriter { store throws(SyncError) in
                try store.applyPulled { transaction in
                    while !transaction.shouldCommit, let page = nextReady() { try transaction.apply(page, to: table) }
                }
            }
            applied.pulled += rows.applied
            applied.undecodable += rows.undecodable
        }
    }
}
