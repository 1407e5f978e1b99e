import Foundation
import PostgresCluster
import Testing

/// The test Realtime server is held to Supabase's own Python client (PyPI `realtime`) and to the
/// frames of Supabase's protocol documentation, over the generated SQL: a private channel joins
/// with the user's token, a broadcast from the database arrives after its commit (and a
/// rolled-back one never), another user's topic is refused, a refreshed token keeps the
/// channel and an expired one ends it; protocol 2.0.0 with text and binary frames; and each
/// failure switch (drop, duplicate, delay, withheld heartbeat replies, kill) does what it says.
@Suite struct RealtimeServerConformanceTests {
    @Test func supabasesOwnClientFindsItAsRealtimeIs() throws {
        let server = try TestServer(realtime: true)
        let realtime = try #require(server.realtime)
        defer { realtime.stop() }
        let output = try PythonScript.run(
            "realtime_conformance.py", arguments: ["--url", realtime.url.absoluteString, "--database-url", server.database.url],
            root: TestServer.packageRoot)
        #expect(output.contains("ok v2: its fields as the protocol documents them"), "\(output)")
        #expect(output.contains("ok switches: kill cuts the socket without a close frame"), "\(output)")
    }
}
