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
        let schema = store.schema
        let (rounds, since) = try await store.onWriter { [pageSize, lookback] store throws(SyncError) in
            var cursors: [String: Int64] = [:]
            for table in schema.tables { cursors[table.name] = try store.cursor(for: table) }
            let scopes = schema.sharesRows ? try store.knownScopes() : [:]
            return (
                StreamRounds(schema: schema, pageSize: pageSize, lookback: lookback, ownCursors: cursors, scopes: scopes),
                try store.pullMark()
            )
        }
        let first = try await transport.pull(rounds.first, since: since, limit: pageSize, function: function, as: credentials)
        var drifts: [ServerError] = []
        var last: PulledTables?
        try await PageBuffer<PulledTables>.fetchingAhead(capacity: Puller.pagesAhead) { [self, rounds] buffer throws(SyncError) in
            try await fetchRounds(after: first, rounds: rounds, into: buffer)
        } apply: { nextReady throws(SyncError) in
            // Every stream's pages of the answers that are ready, in one transaction.
            let (rows, drifted, lastApplied) = try await store.onWriter { [rounds] store throws(SyncError) in
                var drifted: [ServerError] = []
                var lastApplied: PulledTables?
                let rows = try store.applyPulled { transaction in
                    while !transaction.shouldCommit, let answer = nextReady() {
                        try transaction.observeServerTime(answer.serverTimeMs)
                        for table in rounds.own {
                            if let page = answer.pages[table.name] { try transaction.apply(page, to: table) }
                        }
                        if let scopes = answer.scopes {
                            // Scopes that ended go before the listed ones' pages come in.
                            try transaction.list(scopes, arriving: rounds.arriving(in: answer))
                            for (id, scope) in scopes.sorted(by: { $0.key < $1.key }) {
                                for (name, page) in scope.pages.sorted(by: { $0.key < $1.key }) {
                                    guard let table = schema.table(named: name), table.scope != nil else { continue }
                                    try transaction.apply(page, to: table, scope: id)
                                }
                            }
                        }
                        try transaction.applyExits()
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

    /// Puts each round's answer in `buffer` and asks the next while some page was full.
    private func fetchRounds(after first: PulledTables, rounds: StreamRounds, into buffer: PageBuffer<PulledTables>) async throws(SyncError)
    {
        var answer = first
        var rounds = rounds
        while true {
            await buffer.put(answer)
            guard let next = rounds.next(after: answer) else { return }
            if Task.isCancelled { throw SyncError(.cancelled, "The pull was cancelled.") }
            answer = try await transport.pull(next, since: nil, limit: pageSize, function: function, as: credentials)
        }
    }
}
