import Foundation

/// Which tables a pull reads in which stream (docs/PROTOCOL.md, "Sharing (scopes)"): a shared
/// row is in its scope's stream, every other row in its owner's own.
extension AppSchema {
    /// Whether any table is shared: the pull then names its scopes (`"@scopes"`).
    package var sharesRows: Bool { tables.contains { $0.scope != nil } }

    /// The tables read in the own stream: unshared tables, and shared tables' rows that no
    /// scope holds (a scope table's and a membership table's rows are always in a scope).
    package var ownStreamTables: [TableSchema] {
        tables.filter { table in
            guard let kind = table.scope?.kind else { return true }
            return kind == .scoped || kind == .follows
        }
    }

    /// Every table a scope holds.
    package var sharedTables: [TableSchema] { tables.filter { $0.scope != nil } }

    /// The tables a scope of `scopeTable` holds: the scope table, the tables in its scopes and
    /// its membership table.
    package func tables(sharedBy scopeTable: String) -> [TableSchema] {
        tables.filter { $0.scope?.scopeTable == scopeTable }
    }

    /// The scope table of a scope whose pages name `tables` (a scope a pull lists for the first
    /// time); nil when this build knows none of them.
    package func scopeTable(holding tables: some Sequence<String>) -> String? {
        tables.sorted().lazy.compactMap { table(named: $0)?.scope?.scopeTable }.first
    }

    /// The tables in the order a push sends them: scope tables first (a row names its scope,
    /// which must be on the server, its creator its owner, before the row can be written into
    /// it), tables that follow a parent's scope last (their parent first); the others in schema
    /// order. The membership tables are written by the server alone, and left out.
    package var pushOrder: [TableSchema] {
        let ranked = tables.enumerated().compactMap { index, table in Self.pushRank(table).map { (rank: $0, index: index) } }
        return ranked.sorted { ($0.rank, $0.index) < ($1.rank, $1.index) }.map { tables[$0.index] }
    }

    /// A table's place in the push order; nil for a table the server alone writes. Never
    /// inlined: Swift 6.3's release build crashes (an ownership verifier error in
    /// CopyPropagation) where `table.scope?.kind` is read inside pushOrder's closures.
    @inline(never)
    private static func pushRank(_ table: TableSchema) -> Int? {
        guard !table.isWrittenByServer else { return nil }
        guard let kind = table.scope?.kind else { return 1 }
        return kind == .scope ? 0 : kind == .follows ? 2 : 1
    }
}
