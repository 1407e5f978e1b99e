import Postgres
import PostgresCluster

/// A throwaway PostgreSQL cluster with Supabase's roles and one database prepared as a Supabase
/// project's is (the prelude), for the benchmarks that need a real server.
struct BenchCluster {
    let cluster: TemporaryCluster
    let connection: Connection

    static func start() throws -> BenchCluster {
        let cluster = try TemporaryCluster()
        let admin = try Connection(url: cluster.url())
        try admin.execute(script: SupabasePrelude.roles)
        try admin.execute("create database bench")
        let connection = try Connection(url: cluster.url(database: "bench"))
        try connection.execute(script: SupabasePrelude.database)
        return BenchCluster(cluster: cluster, connection: connection)
    }

    func stop() { cluster.stop() }
}
