import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresCluster

/// The one PostgreSQL 15 cluster of a test run, started at first use with the Supabase prelude
/// and stopped when the process exits (or, if it crashes, by the cluster's watchdog).
///
/// Tests that need it call ``createDatabase()`` and get a database of their own, so they can
/// run in parallel. When the cluster cannot start, every such test fails with the server log's
/// tail: they never skip.
public enum PostgresCluster {
    static let templateName = "supabase_template"

    private static let started: Result<(cluster: TemporaryCluster, admin: Connection), any Error> = Result {
        let cluster = try TemporaryCluster()
        atexit { try? PostgresCluster.started.get().cluster.stop() }
        return (cluster, try prepare(cluster))
    }

    private static let lone: Result<(cluster: TemporaryCluster, admin: Connection), any Error> = Result {
        let cluster = try TemporaryCluster()
        atexit { try? PostgresCluster.lone.get().cluster.stop() }
        return (cluster, try prepare(cluster))
    }

    private static let apart: Result<(cluster: TemporaryCluster, admin: Connection), any Error> = Result {
        let cluster = try TemporaryCluster()
        atexit { try? PostgresCluster.apart.get().cluster.stop() }
        return (cluster, try prepare(cluster))
    }

    /// The Supabase prelude in a new cluster: the roles, and the template every test database
    /// is made from.
    private static func prepare(_ cluster: TemporaryCluster) throws -> Connection {
        do {
            let admin = try Connection(url: cluster.url())
            try admin.execute(script: SupabasePrelude.roles)
            try admin.execute("create database \(templateName) is_template true")
            try Connection(url: cluster.url(database: templateName)).execute(script: SupabasePrelude.database)
            return admin
        } catch {
            throw PostgresError(message: "cannot prepare the test cluster: \(error)\n--- server log ---\n\(cluster.logTail())")
        }
    }

    /// The running cluster.
    public static func cluster() throws -> TemporaryCluster {
        try started.get().cluster
    }

    /// A new, empty database holding only the Supabase prelude.
    ///
    /// `alone`: in a second cluster, which only the suites that ask for it use (serialized
    /// suites whose tests read what every running transaction of the cluster does to a
    /// snapshot, such as its xmin).
    ///
    /// `apart`: in a third cluster, for a serialized suite that holds transactions open (its
    /// lock tests) while the `alone` suites read the cluster's oldest running transaction.
    public static func createDatabase(alone: Bool = false, apart: Bool = false) throws -> TestDatabase {
        let (cluster, admin) = try (apart ? Self.apart : alone ? lone : started).get()
        let name = "test_" + UUID().uuidString.prefix(13).lowercased().replacingOccurrences(of: "-", with: "")
        try admin.execute("create database \(name) template \(templateName)")
        return TestDatabase(name: name, url: cluster.url(database: name))
    }
}

/// One test's database.
public struct TestDatabase: Sendable {
    public let name: String
    public let url: String

    /// A new connection as the superuser `postgres` (requests switch role per transaction).
    public func connect() throws -> Connection {
        try Connection(url: url)
    }
}

extension Connection {
    /// `create extension pgtap`, or an error that says how to install it: a machine set up by
    /// the README's test command (scripts/test) has it.
    public func createPgTAP() throws {
        do {
            try execute("create extension pgtap")
        } catch {
            throw PostgresError(
                message:
                    "pgTAP is not installed (\(error)); scripts/test installs it with the other test dependencies (scripts/install-dependencies)"
            )
        }
    }
}

extension Connection {
    /// Supabase Realtime's schema in this connection's database (``SupabasePrelude/realtime``):
    /// only the tests that want it have it, so the others stand for a PostgreSQL without it.
    public func createRealtimeSchema() throws {
        try execute(script: SupabasePrelude.realtime)
    }
}
