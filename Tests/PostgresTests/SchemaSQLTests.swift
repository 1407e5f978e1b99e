import Foundation
import Postgres
import PostgresFixture
import SyncGenerator
import Testing

@Suite struct SchemaSQLTests {
    @Test func schemaSQLAppliesTwiceWithoutError() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        let sql = try TestSchema.renderer.schemaSQL(TestSchema.current)
        try connection.execute(script: sql)
        let before = try Catalog.dump(connection)
        try connection.execute(script: sql)
        #expect(try Catalog.dump(connection) == before)
    }
}
