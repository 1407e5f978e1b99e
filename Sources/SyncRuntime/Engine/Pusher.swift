import Foundation

/// Sends dirty rows in batches. A batch refused for one row's sake (4xx) is split until the bad
/// rows are isolated; they go to the rejected list and the rest land. A 5xx or a network failure
/// stops the push with every row still queued.
struct Pusher {
    let store: SyncStore
    let transport: any SyncTransport
    let credentials: Credentials
    let batchSize: Int

    func push(into report: inout SyncReport) async throws(SyncError) {
        for table in store.schema.tables {
            var after: Int64 = 0
            while true {
                let batch = try storeCall { try store.dirtyRows(in: table, after: after, limit: batchSize) }
                guard let last = batch.last else { break }
                after = last.rowID
                try await send(batch.map(\.values), table, &report)
                if batch.count < batchSize { break }
            }
        }
    }

    private func send(_ rows: [ColumnValues], _ table: TableSchema, _ report: inout SyncReport) async throws(SyncError) {
        do {
            try await transport.upsert(rows, into: table, as: credentials)
            try storeCall { try store.acknowledge(rows, in: table) }
            report.pushed += rows.count
        } catch let error where Self.isRowsFault(error) {
            guard rows.count > 1 else {
                try storeCall { try store.reject(rows[0], in: table, error: error.serverError!) }
                report.rejected += 1
                return
            }
            let middle = rows.count / 2
            try await send(Array(rows[..<middle]), table, &report)
            try await send(Array(rows[middle...]), table, &report)
        }
    }

    /// A 4xx the rows themselves caused. Not: schema drift (every row fails alike), an expired
    /// token (401), a timeout or throttling (408, 429).
    static func isRowsFault(_ error: SyncError) -> Bool {
        guard error.code == .server, let server = error.serverError else { return false }
        guard (400..<500).contains(server.status), ![401, 408, 429].contains(server.status) else { return false }
        return SchemaDrift(server) == nil && server.code != "PGRST102"
    }
}

/// Runs a store call, reporting its failure as a ``SyncError``.
func storeCall<T>(_ body: () throws -> T) throws(SyncError) -> T {
    do {
        return try body()
    } catch let error as SyncError {
        throw error
    } catch {
        throw SyncError(.configuration, "The local database failed: \(error)")
    }
}
