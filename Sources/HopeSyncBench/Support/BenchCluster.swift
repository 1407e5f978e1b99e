import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresCluster

/// A throwaway PostgreSQL 15 cluster with Supabase's roles, for the benchmarks that need a real
/// server. Each database in it is prepared as a Supabase project's is (the prelude).
struct BenchCluster {
    let cluster: TemporaryCluster
    private let postgres: Connection

    static func start() throws -> BenchCluster {
        let cluster = try TemporaryCluster()
        let postgres = try Connection(url: cluster.url())
        try postgres.execute(script: SupabasePrelude.roles)
        return BenchCluster(cluster: cluster, postgres: postgres)
    }

    /// A new database with the prelude and, with `generatedSchema`, the project's
    /// Generated/supabase/schema.sql pasted as a project would; with `realtime`, Supabase's
    /// realtime schema before it, so that writes poke as they do on Supabase.
    func createDatabase(_ name: String, generatedSchema: Bool, realtime: Bool = false) throws -> BenchDatabase {
        try postgres.execute("create database \(name)")
        let url = cluster.url(database: name)
        let admin = try Connection(url: url)
        try admin.execute(script: SupabasePrelude.database)
        if realtime { try admin.execute(script: SupabasePrelude.realtime) }
        if generatedSchema {
            try admin.execute(
                script: String(contentsOf: Repository.root.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8))
        }
        return BenchDatabase(url: url, admin: admin)
    }

    /// The postmaster's process id: every server process is its child.
    func postmasterPID() throws -> Int32 {
        let text = try String(contentsOf: cluster.directory.appendingPathComponent("data/postmaster.pid"), encoding: .utf8)
        guard let pid = Int32(text.split(separator: "\n").first ?? "") else { throw PostgresError(message: "no postmaster.pid") }
        return pid
    }

    func stop() { cluster.stop() }
}

/// One database of a ``BenchCluster``: its URL and a connection as its owner (no row-level
/// security), for setting up and reading back.
struct BenchDatabase: Sendable {
    /// The server's one sequence, as the generated SQL names it.
    static let sequence = "public.sync_server_seq"

    let url: String
    let admin: Connection

    /// The one value `sql` returns, as an integer (0 for none).
    func integer(_ sql: String, _ parameters: [String?] = []) throws -> Int64 {
        Int64(try admin.execute(sql, parameters).scalar ?? "") ?? 0
    }
}

enum Repository {
    /// The package's root, from this file's place in it: bench reads the project's schema.yaml
    /// and Generated/ from there, wherever it is run from.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
