import Foundation
import HopeSchema
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// The engine's replay of the worked example (seeds/000) through the PostgREST transport, byte
/// for byte: the guarded PATCH at T1 (':' and '+' percent-encoded), the read by key, and Keep
/// mine's PATCH at T2.
@Suite(.serialized)
struct ReplayRequestTests {
    static let host = "replay-worked-example.supabase.co"
    static let t2 = "2026-10-18T13:04:00.000001+00:00"
    static let t3 = "2026-10-18T13:05:00.000002+00:00"

    /// Phone B's user, whose write the server's row holds (updated_by: tasks are shared).
    static let phoneBUser = "5f1d2c3b-4a59-4e68-9d7c-0b1a2c3d4e5f"

    func taskJSON(_ title: String, _ version: String) -> String {
        #"[{"id":"0b5e2c4a-9d11-4f0e-a1b2-c3d4e5f60042","updated_at":"\#(version)","title":"\#(title)","done":true,"deleted_ms":null,"updated_by":"\#(Self.phoneBUser)"}]"#
    }

    /// The pull function's answer with no row of any table (the pass's pull after the replay).
    static let emptyPull =
        #"{"mark":1,"tables":{"# + GeneratedSchema.tables.map { #""\#($0.name)":{"rows":[],"more":false}"# }.joined(separator: ",") + "}}"

    @Test func theWorkedExampleGoesOutByteForByte() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).sqlite").path
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: Fixtures.userID, deviceID: "phone-a")
        defer {
            store.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        // Phone A read the task at T1.
        let key = Fixtures.taskID.uuidString.lowercased()
        _ = try store.apply(
            PulledPage(
                rows: [
                    ColumnValues([
                        "id": .text(key), "user_id": .text(Fixtures.userID.uuidString.lowercased()), "title": .text("Buy milk"),
                        "notes": .null, "done": .bool(false), "due_at": .null, "deleted_ms": .null,
                        "updated_at": .text(Fixtures.versionT1), "server_seq": .int(7),
                        "updated_by": .text(Fixtures.userID.uuidString.lowercased()),
                    ])
                ], receivedCount: 1, lastServerSeq: 7), to: TaskItem.table)
        try await store.write { writer in
            var task = try #require(try writer.fetchOne(TaskItem.self, id: Fixtures.taskID))
            task.title = "Buy oat milk"
            task.done = true
            try writer.save(task)
        }

        // The day's hello (no floor), the replay: an empty answer, the read by key at T2, then the pull.
        let first = StubServer(
            host: Self.host,
            answers: [
                .respond(status: 200, body: #"{"oldest_writer":null}"#), .respond(status: 200, body: "[]"),
                .respond(status: 200, body: taskJSON("Buy almond milk", Self.t2)),
                .respond(status: 200, body: Self.emptyPull),
            ])
        var configuration = SyncConfiguration()
        configuration.resolver = { conflict in conflict.conflictingColumns.contains("title") ? .hold : .keepLocal }
        let engine = SyncEngine(store: store, transport: Fixtures.transport(first), configuration: configuration) { Fixtures.user }
        let report = try await engine.syncNow()
        #expect(report.conflicted.map(\.conflictingColumns) == [["title"]])
        #expect(report.conflicted.map(\.serverChangedBy) == [UUID(uuidString: Self.phoneBUser)])
        let hello = try #require(first.requests.first)
        #expect(hello.method == "POST" && hello.url == "https://\(Self.host)/rest/v1/rpc/sync_hello")
        #expect(hello.header("X-Sync-Schema") == String(GeneratedSchema.app.schemaVersion))
        // The same bytes as the transport's own golden request (which uses another host, and
        // states no schema version: the engine's transport does).
        let sent = try #require(first.requests.dropFirst().first)
        #expect(sent.header("X-Sync-Schema") == String(GeneratedSchema.app.schemaVersion))
        let patch = sent.goldenText.replacingOccurrences(of: Self.host, with: RequestGoldenTests.host)
            .replacingOccurrences(of: "x-sync-schema: \(GeneratedSchema.app.schemaVersion)\n", with: "")
        try expectGolden(patch, named: "guarded-update-tasks")
        let read = try #require(first.requests.dropFirst(2).first)
        #expect(read.method == "GET")
        #expect(read.url == "https://\(Self.host)/rest/v1/tasks?id=eq.\(key)&limit=1&select=id,updated_at,title,done,deleted_ms,updated_by")

        // Keep mine: the same write, preconditioned on T2, and the row back at T3.
        let second = StubServer(
            host: Self.host,
            answers: [
                .respond(status: 200, body: taskJSON("Buy oat milk", Self.t3)), .respond(status: 200, body: Self.emptyPull),
            ])
        let entry = try #require(report.conflicted.first)
        try store.resolveConflictedMutation(id: entry.id, resolution: .keepLocal)
        let kept = try await engine.syncNow()
        #expect(kept.synced == 1)
        let resend = try #require(second.requests.first)
        #expect(resend.method == "PATCH")
        #expect(
            resend.url
                == "https://\(Self.host)/rest/v1/tasks?id=eq.\(key)&updated_at=eq.2026-10-18T13%3A04%3A00.000001%2B00%3A00&select=id,updated_at,title,done"
        )
        #expect(resend.body.map { String(decoding: $0, as: UTF8.self) } == #"{"title":"Buy oat milk","done":true}"#)
        #expect(resend.header("Prefer") == "return=representation")
        let landed = try await store.read { try $0.fetchOne(TaskItem.self, id: Fixtures.taskID) }
        #expect(landed?.updatedAt == Self.t3)
    }
}
