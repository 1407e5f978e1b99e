import Foundation
import HopeSyncPostgresCluster
import Testing

/// The test Realtime server is held to Supabase's own Python client (PyPI `realtime`) and to the
/// frames of Supabase's protocol documentation, over the generated SQL: a private channel joins
/// with the user's token, a broadcast from the database arrives after its commit (and a
/// rolled-back one never), another user's topic is refused, a refreshed token keeps the
/// channel and an expired one ends it; a client's broadcast reaches the topic's other channels
/// (its own with `self`) and no one when the user may not write the topic; protocol 2.0.0 with
/// text and binary frames, and a client broadcast answered under `ack`; and each
/// failure switch (drop, duplicate, delay, withheld heartbeat replies, kill) does what it says.
@Suite struct RealtimeServerConformanceTests {
    @Test func supabasesOwnClientFindsItAsRealtimeIs() throws {
        let server = try TestServer(realtime: true)
        let realtime = try #require(server.realtime)
        defer { realtime.stop() }
        let output = try PythonScript.run(
            "realtime_conformance.py", arguments: ["--url", realtime.url.absoluteString, "--database-url", server.database.url],
            root: TestServer.packageRoot)
        #expect(output.contains("ok client broadcasts: and reaches no one"), "\(output)")
        #expect(output.contains("ok v2: its fields as the protocol documents them"), "\(output)")
        #expect(output.contains("ok v2: and comes back with self, as sent"), "\(output)")
        #expect(output.contains("ok switches: kill cuts the socket without a close frame"), "\(output)")
    }
}
