import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncVerify
import Testing

/// `verify` checks the file columns' Storage side: the bucket, private, and its owner-only
/// policies on storage.objects, each finding with the bucket's SQL as its fix.
@Suite struct StorageVerifyTests {
    let verifier = SchemaVerifier(renderer: TestSchema.renderer)
    static let photos = TestSchema.projectSchema.table(named: "task_photos")!
    static let schema = Schema(tables: [TestSchema.tasks, TestSchema.taskLists, photos])
    static let migration = Migration(number: 1, name: "initial", changes: schema.tables.map(SchemaChange.createTable), schema: schema)

    private func migrated() throws -> (TestDatabase, Connection) {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try connection.execute(script: try TestSchema.renderer.migrationSQL(Self.migration))
        return (database, connection)
    }

    private func verify(_ database: TestDatabase) throws -> VerificationReport {
        try verifier.verify(Self.schema, migrations: [Self.migration], databaseURL: database.url)
    }

    @Test func theMigrationMakesTheBucketAndItsPolicies() throws {
        let (database, _) = try migrated()
        #expect(try verify(database).findings == [])
    }

    @Test func aMissingPolicyAPublicBucketAndAWiderPolicyAreFound() throws {
        let (database, connection) = try migrated()
        try connection.execute(script: #"drop policy "task-photos_insert_own" on storage.objects;"#)
        try connection.execute(script: "update storage.buckets set public = true where id = 'task-photos';")
        try connection.execute(
            script: #"""
                drop policy "task-photos_select_own" on storage.objects;
                create policy "task-photos_select_own" on storage.objects for select to authenticated using (bucket_id = 'task-photos');
                """#)
        let report = try verify(database)
        #expect(
            report.findings.map(\.message).sorted() == [
                "policy task-photos_insert_own on storage.objects",
                "policy task-photos_select_own on storage.objects is not the owner-only policy (it has using (bucket_id = 'task-photos'::text))",
                "storage bucket task-photos is public: anyone with a file's name can read it",
            ])
        #expect(report.findings.allSatisfy { $0.table == nil && $0.migration == "0001_initial" })
        // The fix is the bucket's SQL; it leaves an existing bucket's settings to its owner.
        try connection.execute(script: try #require(report.findings.first?.fix))
        try connection.execute(script: "update storage.buckets set public = false where id = 'task-photos';")
        #expect(try verify(database).findings == [])
    }

    @Test func aMissingBucketIsFound() throws {
        let (database, connection) = try migrated()
        try connection.execute(script: "delete from storage.buckets where id = 'task-photos';")
        let report = try verify(database)
        #expect(report.findings.map(\.message) == ["storage bucket task-photos"])
        #expect(report.description.contains("database:\n  missing: storage bucket task-photos"))
    }
}
