import Foundation
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// Every kind of request, byte for byte: method, URL (percent-encoding included), headers, body.
/// One host, a real project's shape, so the suite runs serialized.
@Suite(.serialized)
struct RequestGoldenTests {
    static let host = "abcdefghijklmnop.supabase.co"

    private func send(
        _ answer: StubServer.Answer,
        _ call: (PostgRESTTransport) async throws(SyncError) -> Void
    ) async throws -> RecordedRequest {
        let server = StubServer(host: Self.host, answers: [answer])
        try await call(Fixtures.transport(server))
        return try #require(server.requests.first)
    }

    @Test func upsertSendsUniformWholeRowsInTableOrder() async throws {
        // The columns arrive in another order than the table's; the body is written in table order.
        let first = ColumnValues([
            "user_id": .text(Fixtures.userID.uuidString.lowercased()),
            "id": .text("5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c"),
            "kind": .text("work"), "note": .text("Quote \" backslash \\ tab \t é ✓"),
            "started_ms": .int(1_792_328_400_000), "ended_ms": .null,
            "updated_ms": .int(9_007_199_254_740_993), "deleted_ms": .null, "device_id": .text("device-a"),
        ])
        let second = ColumnValues([
            "id": .text("5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6d"), "user_id": .text(Fixtures.userID.uuidString.lowercased()),
            "kind": .text("break"), "note": .null, "started_ms": .int(1_792_328_500_000), "ended_ms": .int(1_792_328_600_000),
            "updated_ms": .int(1_792_328_600_001), "deleted_ms": .int(1_792_328_700_000), "device_id": .text("device-a"),
        ])
        let request = try await send(.respond(status: 201, body: "")) { transport throws(SyncError) in
            try await transport.upsert([first, second], into: Fixtures.sessions, as: Fixtures.user)
        }
        try expectGolden(request.goldenText, named: "upsert-sessions")
        // The integer above 2^53 goes out exactly, not through a Double.
        #expect(String(decoding: try #require(request.body), as: UTF8.self).contains("\"updated_ms\":9007199254740993"))
    }

    @Test func anUpsertWhoseDeviceAnnouncesItSaysSoAndOnlyThen() async throws {
        let row = ColumnValues([
            "id": .text("5e1d0c8a-7b6f-4a3e-9d2c-1b0a9f8e7d6c"), "user_id": .text(Fixtures.userID.uuidString.lowercased()),
            "kind": .text("work"), "note": .null, "started_ms": .int(1), "ended_ms": .null,
            "updated_ms": .int(2), "deleted_ms": .null, "device_id": .text("device-a"),
        ])
        let announced = try await send(.respond(status: 201, body: "")) { transport throws(SyncError) in
            try await transport.upsert([row], into: Fixtures.sessions, as: Fixtures.user, announcingPokes: true)
        }
        #expect(announced.header("X-Sync-Pokes") == "client")
        let plain = try await send(.respond(status: 201, body: "")) { transport throws(SyncError) in
            try await transport.upsert([row], into: Fixtures.sessions, as: Fixtures.user)
        }
        #expect(plain.header("X-Sync-Pokes") == nil)
        #expect(plain.body == announced.body)
    }

    @Test func upsertEmbedsJSONAndWritesBytesAsHex() async throws {
        let row = ColumnValues([
            "id": .text("a11ce000-0000-4000-8000-000000000001"), "user_id": .text(Fixtures.userID.uuidString.lowercased()),
            "meta": .text(#"{"tags": ["a", "b"], "size": 12345678901234567890, "ok": true}"#),
            "thumbnail": .bytes(Data([0x00, 0x7F, 0xAB, 0xFF])), "ratio": .double(0.1),
            "updated_ms": .int(-1), "device_id": .text("device-b"),
        ])
        let nanRow = ColumnValues([
            "id": .text("a11ce000-0000-4000-8000-000000000002"), "user_id": .text(Fixtures.userID.uuidString.lowercased()),
            "meta": .null, "thumbnail": .bytes(Data()), "ratio": .double(.nan),
            "updated_ms": .int(Int64.max), "device_id": .text("device-b"),
        ])
        let request = try await send(.respond(status: 200, body: "")) { transport throws(SyncError) in
            try await transport.upsert([row, nanRow], into: Fixtures.attachments, as: Fixtures.user)
        }
        try expectGolden(request.goldenText, named: "upsert-attachments")
    }

    @Test func pullAsksForEveryColumnAfterTheCursorInSequenceOrder() async throws {
        let request = try await send(.respond(status: 200, body: "[]")) { transport throws(SyncError) in
            _ = try await transport.pull(Fixtures.sessions, after: 41, limit: 500, as: Fixtures.user)
        }
        try expectGolden(request.goldenText, named: "pull-sessions")
    }

    /// The worked example's replay (seeds/000): the version's ':' and '+' percent-encoded.
    @Test func guardedUpdateCarriesTheBaseVersionEncoded() async throws {
        let request = try await send(.respond(status: 200, body: "[]")) { transport throws(SyncError) in
            _ = try await transport.guardedUpdate(
                Fixtures.tasks, id: Fixtures.taskID, baseVersion: Fixtures.versionT1,
                set: ColumnValues(["title": .text("Buy oat milk"), "done": .bool(true)]),
                extraFilters: [], returning: ["id", "updated_at", "title", "done"], as: Fixtures.user
            )
        }
        try expectGolden(request.goldenText, named: "guarded-update-tasks")
        #expect(request.url.contains("&updated_at=eq.2026-10-18T13%3A00%3A27.486123%2B00%3A00&"))
    }

    @Test func guardedUpdateEncodesExtraFilters() async throws {
        let request = try await send(.respond(status: 200, body: "[]")) { transport throws(SyncError) in
            _ = try await transport.guardedUpdate(
                Fixtures.tasks, id: Fixtures.taskID, baseVersion: "2026-10-18T13:04:00.000001+00:00",
                set: ColumnValues(["notes": .null]),
                extraFilters: [
                    Filter("title", .eq, .text("milk & eggs, 2+1 (50%) #a=b")),
                    Filter("done", .neq, .bool(true)),
                    Filter("notes", .isNull),
                    Filter("notes", .eq, .null),
                    Filter("title", .neq, .null),
                ],
                returning: ["id", "updated_at", "notes"], as: Fixtures.user
            )
        }
        try expectGolden(request.goldenText, named: "guarded-update-filters")
        #expect(
            request.url.contains(
                "title=eq.milk%20%26%20eggs%2C%202%2B1%20%2850%25%29%20%23a%3Db&done=neq.true&notes=is.null&notes=is.null&title=not.is.null&"
            ))
    }

    @Test func fetchReadsOneRowByKey() async throws {
        let request = try await send(.respond(status: 200, body: "[]")) { transport throws(SyncError) in
            _ = try await transport.fetch(
                Fixtures.tasks, id: Fixtures.taskID, columns: ["id", "updated_at", "title", "done"], as: Fixtures.user)
        }
        try expectGolden(request.goldenText, named: "fetch-tasks")
    }
}
