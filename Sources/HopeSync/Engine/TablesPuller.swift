import Foundation

/// Pulls every table in one request a round, through the server's pull function: each table's
/// next page, read in one snapshot, and the user's mark. While some table's page is full, the
/// next round asks again for every table, so the last round reads them all in one snapshot;
/// once every page of it is applied, its mark is kept and sent back at the next pass, and while
/// nothing of the user's was written since, the server answers with the mark alone (an idle
/// pass is one index lookup, not one query a table). Pages are applied as ``Puller`` applies
/// them (rows and cursors in one transaction while answers keep arriving, fetched ahead of the
/// apply), from the same starts (a lookback table's window behind its cursor).
struct TablesPuller {
    let store: SyncStore
    let transport: any SyncTransport
    let credentials: Credentials
    let pageSize: Int
    let lookback: Int64?
    let function: String

    /// Pulls every table; returns the schema drift of the tables it passed over. A server
    /// without the function fails the first request, before anything is applied.
    func pull(into report: inout SyncReport) async throws(SyncError) -> [ServerError] {
        let tables = store.schema.tables
        let (cursors, since) = try await store.onWriter { store throws(SyncError) in
            var cursors: [String: Int64] = [:]
            for table in tables { cursors[table.name] = try store.cursor(for: table) }
            return (cursors, try store.pullMark())
        }
        let first = try await transport.pull(
            PullCursors(own: tables.map { TableCursor($0, after: Puller.start(of: $0, at: cursors[$0.name] ?? 0, lookback: lookback)) }),
            since: since, limit: pageSize, function: function, as: credentials)
        var drifts: [ServerError] = []
        var last: PulledTables?
        try await PageBuffer<PulledTables>.fetchingAhead(capacity: Puller.pagesAhead) { [self, cursors] buffer throws(SyncError) in
            try await fetchRounds(after: first, tables: tables, cursors: cursors, into: buffer)
        } apply: { nextReady throws(SyncError) in
            // Every table's pages of the answers that are ready, in one transaction.
            let (rows, drifted, lastApplied) = try await store.onWriter { store throws(SyncError) in
                var drifted: [ServerError] = []
                var lastApplied: PulledTables?
                let rows = try store.applyPulled { transaction in
                    while !transaction.shouldCommit, let answer = nextReady() {
                        try transaction.observeServerTime(answer.serverTimeMs)
                        for table in tables {
                            if let page = answer.pages[table.name] { try transaction.apply(page, to: table) }
                        }
                        drifted += answer.drifted.sorted { $0.key < $1.key }.flatMap(\.value)
                        lastApplied = answer
                    }
                }
                return (rows, drifted, lastApplied)
            }
            drifts += drifted
            if let lastApplied { last = lastApplied }
            report.pulled += rows.applied
            report.undecodable += rows.undecodable
        }
        // The last answer's mark, once everything was applied.
        if drifts.isEmpty, let mark = last?.mark, mark != since {
            try await store.onWriter { store throws(SyncError) in try store.savePullMark(mark) }
        }
        return drifts
    }

    /// Puts each round's answer in `buffer` and asks the next while some page was full, each
    /// table from past its page (a full one) or from its start again (the rest).
    private func fetchRounds(
        after first: PulledTables, tables: [TableSchema], cursors: [String: Int64], into buffer: PageBuffer<PulledTables>
    ) async throws(SyncError) {
        var answer = first
        var cursors = cursors
        var asked = tables
        while true {
            await buffer.put(answer)
            asked = asked.filter { answer.drifted[$0.name] == nil }
            var next: [TableCursor] = []
            var full = false
            for table in asked {
                let page = answer.pages[table.name]
                let last = page?.lastServerSeq ?? 0
                cursors[table.name] = max(cursors[table.name] ?? 0, last)
                if let page, page.receivedCount >= pageSize, last > 0 {
                    full = true
                    next.append(TableCursor(table, after: last))
                } else {
                    next.append(TableCursor(table, after: Puller.start(of: table, at: cursors[table.name] ?? 0, lookback: lookback)))
                }
            }
            guard full else { return }
            if Task.isCancelled { throw SyncError(.cancelled, "The pull was cancelled.") }
            answer = try await transport.pull(PullCursors(own: next), since: nil, limit: pageSize, function: function, as: credentials)
        }
    }
}
