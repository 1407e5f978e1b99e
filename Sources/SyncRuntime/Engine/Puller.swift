import Foundation

/// Walks each table's rows by server_seq from its cursor (less the lookback), applying every page
/// in one transaction with its cursor. The next page is fetched while the current one is applied,
/// so the network (and the reading of JSON) overlaps the local writes.
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

    private func pull(_ table: TableSchema, into report: inout SyncReport) async throws(SyncError) {
        let cursor = try storeCall { try store.cursor(for: table) }
        var after: Int64
        switch table.ordering {
        case .exact: after = cursor
        case .lookback(let rows): after = max(0, cursor - (lookback ?? rows))
        }
        var next: Task<PulledPage, any Error>? = fetch(table, after: after)
        while let current = next {
            let page = try await Self.value(of: current)
            next = nil
            if page.receivedCount >= pageSize, let last = page.lastServerSeq, last > after {
                after = last
                next = fetch(table, after: last)
            }
            do {
                let applied = try storeCall { try store.apply(page, to: table) }
                report.pulled += applied.applied
                report.undecodable += applied.undecodable
            } catch {
                next?.cancel()
                throw error
            }
        }
    }

    private func fetch(_ table: TableSchema, after cursor: Int64) -> Task<PulledPage, any Error> {
        Task { [transport, credentials, pageSize] in
            try await transport.pull(table, after: cursor, limit: pageSize, as: credentials)
        }
    }

    private static func value(of task: Task<PulledPage, any Error>) async throws(SyncError) -> PulledPage {
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.cancelled, "The pull was cancelled.")
        }
    }
}
