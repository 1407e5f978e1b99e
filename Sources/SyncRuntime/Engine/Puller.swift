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

    func pull(into report: inout SyncReport) async throws(SyncError) {
        for table in tables ?? store.schema.tables {
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
            throw SyncError(.connectivity, "The pull was cancelled.")
        }
    }
}
