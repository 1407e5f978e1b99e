import Foundation
import HopeSyncPostgresCluster
import HopeSyncTestSupport
import Testing

/// The test Storage server answers Supabase's own Python client (storage3) as Storage does, so
/// it is not shaped to our client: Tests/Servers/storage_conformance.py, on the generated bucket
/// and policies.
@Suite struct StorageConformanceTests {
    @Test func supabasesOwnClientFindsItStorage() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let python = StorageServer.root.appendingPathComponent(".build/test-python/bin/python")
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path),
            "the test servers' Python is missing (\(python.path)): scripts/test makes it (scripts/python-env)")
        let arguments = [
            StorageServer.root.appendingPathComponent("Tests/Servers/storage_conformance.py").path, storage.projectURL.absoluteString + "/",
            TestJWT.secret, UUID().uuidString.lowercased(), UUID().uuidString.lowercased(), "task-photos",
        ]
        let conformance = try await Subprocess.run(.init(python.path, arguments, error: .intoOutput))
        let text = conformance.outputText
        #expect(conformance.status == 0, "\(text)")
        #expect(text.hasSuffix("conformance ok\n"), "\(text)")
    }
}
