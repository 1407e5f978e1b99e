import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncVerify
import Testing

@testable import HopeSyncGeneratorCore

/// `generate-verify` knows the past from Generated/schema.snapshot.json, which records each
/// migration's changes by name: it names the same migrations as the full plan does.
@Suite struct VerifySnapshotTests {
    @Test func theSnapshotNamesTheSameMigrations() throws {
        let database = try PostgresCluster.createDatabase()
        try database.connect().execute(script: try TestSchema.renderer.migrationSQL(TestSchema.initialMigration))
        let entries = TestSchema.migrations.map { migration in
            Snapshot.Entry(
                number: migration.number, name: migration.name, stamp: "20260101000000",
                changes: migration.changes.map(\.recorded), sqliteSHA256: "", supabaseSHA256: "")
        }
        let verifier = SchemaVerifier(renderer: TestSchema.renderer)
        let fromSnapshot = try verifier.verify(
            TestSchema.current, snapshot: Snapshot(schema: TestSchema.current, migrations: entries), databaseURL: database.url)
        let fromPlan = try verifier.verify(TestSchema.current, migrations: TestSchema.migrations, databaseURL: database.url)
        #expect(fromSnapshot == fromPlan)
        // The tag column, its index, and sessions' write trigger that merges the new column.
        #expect(fromSnapshot.findings.map(\.migration) == ["0002_sessions_add_tag", "0002_sessions_add_tag", "0002_sessions_add_tag"])
        #expect(fromSnapshot.findings.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.column, .function, .index])
        let outcome = verifier.outcome(TestSchema.current, snapshot: nil, databaseURL: database.url)
        #expect(outcome.status == 1)
        #expect(outcome.text.contains("fix: run:"))
    }
}
