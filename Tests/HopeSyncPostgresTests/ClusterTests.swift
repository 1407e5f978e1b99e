import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresCluster
import HopeSyncPostgresFixture
import Testing

@Suite struct ClusterTests {
    @Test func requestsSeeTheirRoleAndUser() throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        let user = UUID()
        let row = try connection.request(asUser: user) { connection in
            try connection.execute("select current_user as role, auth.uid()::text as uid").rows[0]
        }
        #expect(row["role"] == "authenticated")
        #expect(row["uid"] == user.uuidString.lowercased())
        // The settings are local to the request's transaction.
        #expect(try connection.execute("select current_user").scalar == "postgres")
    }

    @Test func errorsKeepTheServerFields() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        let error = try #require(throws: PostgresError.self) {
            try connection.execute("select * from no_such_table")
        }
        #expect(error.sqlState == "42P01")
        #expect(error.message.contains("no_such_table"))
    }

    @Test func parametersAreSentApartFromTheText() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        let result = try connection.execute("select $1::text as a, $2::text as b", ["it's; drop table x", nil])
        #expect(result.rows[0]["a"] == "it's; drop table x")
        #expect(result.rows[0]["b"] == nil)
    }

    @Test func aConnectionErrorNeverShowsThePassword() throws {
        let port = try PostgresCluster.cluster().port
        let error = try #require(throws: PostgresError.self) {
            try Connection(url: "postgresql://postgres:s3cret-pw@127.0.0.1:\(port)/no_such_database")
        }
        #expect(error.message.contains("no_such_database"))
        #expect(!error.description.contains("s3cret-pw"))
    }

    @Test func keyValueConnectionStringsWorkToo() throws {
        let database = try PostgresCluster.createDatabase()
        let port = try PostgresCluster.cluster().port
        let connection = try Connection(url: "host=127.0.0.1 port=\(port) user=postgres dbname=\(database.name) connect_timeout=3")
        #expect(try connection.execute("select current_database()").scalar == database.name)
    }

    @Test func aClusterThatCannotStartSaysWhy() throws {
        let error = try #require(throws: PostgresError.self) { try TemporaryCluster(version: 1) }
        #expect(error.message.contains("/usr/lib/postgresql/1/bin/initdb"))
    }
}
