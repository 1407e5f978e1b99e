import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresCluster
import HopeSyncPostgresFixture

/// A database of its own with the generated server SQL applied, as the migration would run it,
/// and the PostgreSQL transport the devices reach it through; with `realtime`, also Supabase
/// Realtime's schema and the test Realtime server over it.
struct TestServer: Sendable {
    let database: TestDatabase
    let transport: PostgresTransport
    let realtime: RealtimeTestServer?
    /// The server SQL applied: the project's, or a fixture's.
    let schemaSQL: URL

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The committed `Generated/supabase/schema.sql`: the real generated SQL, not a copy.
    static let schemaURL = packageRoot.appendingPathComponent("Generated/supabase/schema.sql")

    /// - Parameter ownerLockWaitsUnbounded: a wait for the owner's lock lasts as long as it
    ///   takes (`hope_sync.owner_lock_timeout = 0` for the database), for tests that hold one
    ///   writer open while another waits, so that a slow machine does not end the wait.
    /// - Parameter schemaSQL: the generated SQL to apply (default: the project's).
    init(realtime: Bool = false, ownerLockWaitsUnbounded: Bool = false, schemaSQL: URL = TestServer.schemaURL) throws {
        self.schemaSQL = schemaSQL
        database = try PostgresCluster.createDatabase()
        if ownerLockWaitsUnbounded {
            try database.connect().execute("alter database \(database.name) set hope_sync.owner_lock_timeout = '0'")
        }
        transport = PostgresTransport(url: database.url)
        if realtime { try database.connect().createRealtimeSchema() }
        self.realtime = realtime ? try RealtimeTestServer(databaseURL: database.url, root: Self.packageRoot) : nil
        try applySchema()
    }

    /// Runs schema.sql as the project's owner would paste it (it is idempotent).
    func applySchema() throws {
        try database.connect().execute(script: String(contentsOf: schemaSQL, encoding: .utf8))
    }

    /// Every row of `table` that `user` can see, by id, read through the transport.
    func rows(of table: TableSchema, for user: UUID) async throws -> [String: ColumnValues] {
        let page = try await transport.pull(table, after: 0, limit: 1_000, as: Credentials(user))
        return Dictionary(uniqueKeysWithValues: page.rows.map { ($0["id"]?.text ?? "", $0) })
    }

    /// The number of rows of `table`, whoever owns them (as the superuser).
    func count(of table: String) throws -> Int {
        Int(try database.connect().execute("select count(*) from public.\(table)").scalar ?? "") ?? -1
    }

    /// The server's clock now, in milliseconds since 1970.
    func clockMs() throws -> Int64 {
        Int64(try database.connect().execute("select (extract(epoch from clock_timestamp()) * 1000)::bigint").scalar ?? "") ?? -1
    }
}

extension Credentials {
    /// A signed-in user; the PostgreSQL transport sets `sub` from the id and never sends the token.
    init(_ user: UUID) {
        self.init(userID: user, accessToken: Self.unusedToken)
    }

    static let unusedToken = "unused-by-postgres"
}
