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
        let rank: (TableSchema) -> Int = { table in
            switch table.scope?.kind {
            case .scope?: 0
            case .follows?: 2
            default: 1
            }
        }
        return tables.filter { !$0.isWrittenByServer }.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
    }
}
