import Foundation

/// Where each stream's next page starts, over the rounds of one pull of every table: the own
/// stream's tables and, in a schema that shares rows, each scope's tables (docs/PROTOCOL.md,
/// "Sharing (scopes)"). A round asks again for every stream: past its page where the page was
/// full, from its start again where not, so the last round reads them all in one snapshot.
struct StreamRounds {
    let schema: AppSchema
    let pageSize: Int
    let lookback: Int64?
    /// The own stream's tables still asked for (a table that drifted is passed over).
    private(set) var own: [TableSchema]
    private var ownCursors: [String: Int64]
    /// The scopes to name, by id: their scope table and each table's cursor. Nil: the schema
    /// shares nothing, and the request has no `"@scopes"`.
    private var scopes: [String: (scopeTable: String, cursors: [String: Int64])]?

    init(
        schema: AppSchema, pageSize: Int, lookback: Int64?, ownCursors: [String: Int64], scopes: [String: KnownScope]
    ) {
        self.schema = schema
        self.pageSize = pageSize
        self.lookback = lookback
        self.ownCursors = ownCursors
        own = schema.sharesRows ? schema.ownStreamTables : schema.tables
        self.scopes = schema.sharesRows ? scopes.mapValues { ($0.scopeTable, $0.cursors) } : nil
    }

    /// The first round: every stream from its start.
    var first: PullCursors {
        request { _, table, cursor in self.start(of: table, at: cursor) }
    }

    /// Takes in `answer` and returns the next round, or nil when no page of it was full.
    mutating func next(after answer: PulledTables) -> PullCursors? {
        own = own.filter { answer.drifted[$0.name] == nil }
        var resume: [String: Int64] = [:]
        for table in own {
            advance(&ownCursors, table, answer.pages[table.name], resume: &resume, key: table.name)
        }
        if let listed = answer.scopes, scopes != nil {
            var kept: [String: (scopeTable: String, cursors: [String: Int64])] = [:]
            for (id, scope) in listed {
                guard let scopeTable = scopes?[id]?.scopeTable ?? schema.scopeTable(holding: scope.pages.keys) else { continue }
                var cursors = scopes?[id]?.cursors ?? [:]
                for table in schema.tables(sharedBy: scopeTable) {
                    advance(&cursors, table, scope.pages[table.name], resume: &resume, key: id + "/" + table.name)
                }
                kept[id] = (scopeTable, cursors)
            }
            scopes = kept
        }
        guard !resume.isEmpty else { return nil }
        return request { key, table, cursor in resume[key] ?? self.start(of: table, at: cursor) }
    }

    /// The scopes of `answer` still arriving: some page of theirs was full.
    func arriving(in answer: PulledTables) -> Set<String> {
        Set((answer.scopes ?? [:]).filter { $0.value.pages.values.contains(where: isFull) }.keys)
    }

    private func isFull(_ page: PulledPage) -> Bool {
        page.receivedCount >= pageSize && (page.lastServerSeq ?? 0) > 0
    }

    /// Moves a stream's cursor past its page; a full page's stream resumes right after it.
    private func advance(
        _ cursors: inout [String: Int64], _ table: TableSchema, _ page: PulledPage?, resume: inout [String: Int64], key: String
    ) {
        let last = page?.lastServerSeq ?? 0
        cursors[table.name] = max(cursors[table.name] ?? 0, last)
        if let page, isFull(page) { resume[key] = last }
    }

    /// Where a table's pull starts: at its cursor (exact ordering), or its lookback's window behind.
    private func start(of table: TableSchema, at cursor: Int64) -> Int64 {
        Puller.start(of: table, at: cursor, lookback: lookback)
    }

    /// A request naming every stream, each table from where `position` says (given the stream's
    /// key, `table` or `scope/table`, the table and its cursor).
    private func request(_ position: (String, TableSchema, Int64) -> Int64) -> PullCursors {
        let ownStream = own.map { TableCursor($0, after: position($0.name, $0, ownCursors[$0.name] ?? 0)) }
        guard let scopes else { return PullCursors(own: ownStream) }
        let scopeCursors = Dictionary(
            uniqueKeysWithValues: scopes.map { entry in
                let (id, cursors) = (entry.key, entry.value.cursors)
                return (
                    id,
                    schema.tables(sharedBy: entry.value.scopeTable).map {
                        TableCursor($0, after: position(id + "/" + $0.name, $0, cursors[$0.name] ?? 0))
                    }
                )
            })
        return PullCursors(own: ownStream, scopes: scopeCursors, sharedTables: schema.sharedTables)
    }
}
