import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

@Suite struct SchemaSQLTests {
    @Test func schemaSQLAppliesTwiceWithoutError() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        let sql = try TestSchema.renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder)
        try connection.execute(script: sql)
        let before = try Catalog.dump(connection)
        try connection.execute(script: sql)
        #expect(try Catalog.dump(connection) == before)
    }

    /// Pasting schema.sql, first or again, shows no "already exists, skipping" notices, and the
    /// second paste changes nothing.
    @Test func schemaSQLPastesTwiceWithoutNotices() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        let sql = try TestSchema.renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder)
        _ = connection.takeNotices()
        try connection.execute(script: sql)
        #expect(connection.takeNotices() == [])
        let before = try Catalog.dump(connection)
        try connection.execute(script: sql)
        #expect(connection.takeNotices() == [])
        #expect(try Catalog.dump(connection) == before)
        // The quiet setting ends with the paste: the session's own is untouched.
        #expect(try connection.execute("show client_min_messages").scalar == "notice")
    }

    /// The check above can fail: the connection does collect what the server notices.
    @Test func connectionCollectsTheServersNotices() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.execute(script: "create table if not exists public.t (); create table if not exists public.t ();")
        #expect(connection.takeNotices() == [Notice(severity: "NOTICE", message: "relation \"t\" already exists, skipping")])
        #expect(connection.takeNotices() == [])
    }

    /// A paste that fails part way changes nothing: schema.sql is one transaction.
    @Test func aSchemaSQLThatFailsPartWayChangesNothing() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        let before = try Catalog.dump(connection)
        let sql = try TestSchema.renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder)
        let broken = sql.replacingOccurrences(of: "\ncommit;\n", with: "\nselect 1 / 0;\ncommit;\n")
        #expect(broken != sql)
        #expect(throws: PostgresError.self) { try connection.execute(script: broken) }
        try connection.execute("rollback") // the failed transaction, as a client would end it
        #expect(try Catalog.dump(connection) == before)
    }
}
