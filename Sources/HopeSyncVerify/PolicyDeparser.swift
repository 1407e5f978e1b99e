import HopeSyncPostgresClient

/// The rendered policies as PostgreSQL keeps them, so they compare with the live ones exactly:
/// `pg_policies` shows an expression in its own deparsed spelling
/// (`(user_id = ( SELECT auth.uid() AS uid))` for `user_id = (select auth.uid())`), which only
/// PostgreSQL can produce from a template's text. Each policy is created on a temporary copy
/// of its table's columns, read back, and the transaction rolled back: nothing of the
/// database's own is touched or locked beyond a read.
enum PolicyDeparser {
    /// Table name -> policy name -> the policy as deparsed; `tables` are the ones that exist
    /// (a policy needs its table's columns). A policy that PostgreSQL refuses (its table lacks a
    /// column it names) is left out: the missing column is reported on its own.
    static func deparse(
        _ policies: [RenderedObjects.Policy], tables: Set<String>, schema: String = "public", on connection: Connection
    ) throws(PostgresError) -> [String: [String: LiveCatalog.PolicyInfo]] {
        let byTable = Dictionary(grouping: policies.filter { tables.contains($0.table) }, by: \.table)
        guard !byTable.isEmpty else { return [:] }
        try connection.execute("begin")
        defer { _ = try? connection.execute("rollback") }
        var tableOfCopy: [String: String] = [:]
        for (number, table) in byTable.keys.sorted().enumerated() {
            let copy = "hope_sync_verify_\(number)"
            tableOfCopy[copy] = table
            try connection.execute("create temporary table \(copy) (like \(schema).\(table))")
            for policy in byTable[table]! {
                try connection.execute("savepoint policy")
                do {
                    try connection.execute("create policy \(policy.name) on pg_temp.\(copy) \(policy.clauses)")
                    try connection.execute("release savepoint policy")
                } catch {
                    try connection.execute("rollback to savepoint policy")
                }
            }
        }
        let schema = try connection.execute("select pg_catalog.pg_my_temp_schema()::regnamespace::text").scalar ?? "pg_temp"
        var deparsed: [String: [String: LiveCatalog.PolicyInfo]] = [:]
        for (copy, policies) in try LiveCatalog.policies(inSchema: schema, on: connection) {
            if let table = tableOfCopy[copy] { deparsed[table] = policies }
        }
        return deparsed
    }
}
