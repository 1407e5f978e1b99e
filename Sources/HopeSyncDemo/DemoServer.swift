import Foundation
@_spi(Transport) import HopeSync
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresCluster
import HopeSyncTesting

/// Where the demo's devices sync to: the in-memory server, a PostgreSQL the user names, or a
/// throwaway PostgreSQL the demo starts and stops itself.
struct DemoServer {
    let transport: any SyncTransport
    let description: String
    /// Stops what the demo started.
    let stop: () -> Void

    static func inMemory(tables: [TableSchema]) -> DemoServer {
        DemoServer(transport: InMemoryServer(tables: tables), description: "the in-memory server", stop: {})
    }

    /// A database that already has the generated schema (Generated/supabase/schema.sql, or
    /// the migrations) and the Supabase roles; the demo never changes its schema.
    static func postgres(url: String) -> DemoServer {
        DemoServer(transport: PostgresTransport(url: url), description: "PostgreSQL (the given database)", stop: {})
    }

    /// A new cluster with the Supabase prelude and the generated schema.sql applied.
    static func temporaryPostgres(schemaSQL: URL) throws -> DemoServer {
        let cluster = try TemporaryCluster()
        do {
            let admin = try Connection(url: cluster.url())
            try admin.execute(script: SupabasePrelude.roles)
            try admin.execute("create database demo")
            let database = try Connection(url: cluster.url(database: "demo"))
            try database.execute(script: SupabasePrelude.database)
            try database.execute(script: String(contentsOf: schemaSQL, encoding: .utf8))
        } catch {
            cluster.stop()
            throw error
        }
        return DemoServer(
            transport: PostgresTransport(url: cluster.url(database: "demo")),
            description: "a temporary PostgreSQL 15 with \(schemaSQL.lastPathComponent) applied",
            stop: { cluster.stop() }
        )
    }
}
