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
}
