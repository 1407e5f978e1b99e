import Foundation

/// Walks each table's rows by server_seq from its cursor (less the lookback), applying every page
/// in one transaction with its cursor.
struct Puller {
    let store: SyncStore
    let transport: any SyncTransport
    let credentials: Credentials
    let pageSize: Int
    let lookback: Int64?

    func pull(into report: inout SyncReport) async throws(SyncError) {
        for table in store.schema.tables {
            let cursor = try storeCall { try store.cursor(for: table) }
            var after: Int64
            switch table.ordering {
            case .exact: after = cursor
            case .lookback(let rows): after = max(0, cursor - (lookback ?? rows))
            }
            while true {
                let page = try await transport.pull(table, after: after, limit: pageSize, as: credentials)
                let applied = try storeCall { try store.apply(page, to: table) }
                report.pulled += applied.applied
                report.undecodable += applied.undecodable
                guard page.receivedCount >= pageSize, let last = page.lastServerSeq, last > after else { break }
                after = last
            }
        }
    }
}
