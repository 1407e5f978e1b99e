import Foundation
import HopeSchema
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync
@testable import HopeSyncTesting

@Suite struct InMemoryServerTests {
    let server = InMemoryServer.hope()
    let alice = Credentials(userID: UUID(), accessToken: "a")
    let bob = Credentials(userID: UUID(), accessToken: "b")
    let sessions = HopeFixture.sessions()

    func session(_ id: UUID, owner: Credentials, start: Int64, end: Int64? = nil, updated: Int64, device: String = "d1") -> ColumnValues {
        let names = sessions.columnNames.filter { $0 != "server_seq" && $0 != "column_stamps" } // a whole-row client
        let values: [SyncValue] = [
            .text(id.uuidString.lowercased()), .text(owner.userID.uuidString.lowercased()), .text(UUID().uuidString.lowercased()),
            .int(start), end.map(SyncValue.int) ?? .null, .null, .text("phone"), .int(updated), .null, .text(device),
        ]
        return ColumnValues(columns: names, values: values)
    }

    @Test func olderOrEqualPairsAreDiscardedAndAcceptedRowsAreSequenced() async throws {
        let id = UUID()
        try await server.upsert([session(id, owner: alice, start: 1, end: 2, updated: 10)], into: sessions, as: alice)
        try await server.upsert([session(id, owner: alice, start: 1, end: 3, updated: 10)], into: sessions, as: alice)
        try await server.upsert([session(id, owner: alice, start: 1, end: 4, updated: 9, device: "z")], into: sessions, as: alice)
        var stored = await server.rows(of: "sessions")[id.uuidString.lowercased()]
        #expect(stored?["ended_ms"] == .int(2) && stored?["server_seq"] == .int(1))
        // Same millisecond, larger device id: wins.
        try await server.upsert([session(id, owner: alice, start: 1, end: 5, updated: 10, device: "d2")], into: sessions, as: alice)
        stored = await server.rows(of: "sessions")[id.uuidString.lowercased()]
        #expect(stored?["ended_ms"] == .int(5) && stored?["server_seq"] == .int(2))
    }

    @Test func anotherUsersRowRefusesTheWholeRequest() async throws {
        let id = UUID()
        try await server.upsert([session(id, owner: alice, start: 1, end: 2, updated: 10)], into: sessions, as: alice)
        let mine = UUID()
        await #expect {
            try await server.upsert(
                [session(mine, owner: bob, start: 1, end: 2, updated: 1), session(id, owner: bob, start: 1, end: 2, updated: 99)],
                into: sessions, as: bob)
        } throws: { error in
            (error as? SyncError)?.serverError?.code == "42501" && (error as? SyncError)?.httpStatus == 403
        }
        #expect(await server.rows(of: "sessions")[mine.uuidString.lowercased()] == nil)
        let page = try await server.pull(sessions, after: 0, limit: 10, as: bob)
        #expect(page.rows.isEmpty)
    }

    @Test func oneOpenSessionPerOwner() async throws {
        let (old, new, late) = (UUID(), UUID(), UUID())
        try await server.upsert([session(old, owner: alice, start: 100, updated: 1)], into: sessions, as: alice)
        try await server.upsert([session(new, owner: alice, start: 200, updated: 2, device: "d2")], into: sessions, as: alice)
        try await server.upsert([session(late, owner: alice, start: 150, updated: 3)], into: sessions, as: alice)
        let rows = await server.rows(of: "sessions")
        #expect(rows[old.uuidString.lowercased()]?["ended_ms"] == .int(200))
        #expect(rows[late.uuidString.lowercased()]?["ended_ms"] == .int(200))
        #expect(rows[new.uuidString.lowercased()]?["ended_ms"] == .null)
        // The closes are the server's own writes, as the generated triggers make them: device id
        // '' (no device has it, so no device write can carry the same pair), a late row's end
        // one past its sender's stamp, an earlier row's max(its own + 1, the newcomer's).
        #expect(rows[late.uuidString.lowercased()]?["updated_ms"] == .int(4))
        #expect(rows[late.uuidString.lowercased()]?["device_id"] == .text(""))
        #expect(rows[old.uuidString.lowercased()]?["updated_ms"] == .int(2))
        #expect(rows[old.uuidString.lowercased()]?["device_id"] == .text(""))
    }

    @Test func versionTablesBumpTheirVersion() async throws {
        let table = HopeFixture.taskLists
        let id = UUID()
        let row = ColumnValues(
            columns: ["id", "user_id", "name", "position", "icon", "deleted_ms", "version"],
            values: [
                .text(id.uuidString.lowercased()), .text(alice.userID.uuidString.lowercased()), .text("Inbox"), .double(0), .null, .null,
                .int(77),
            ]
        )
        try await server.upsert([row], into: table, as: alice)
        #expect(await server.rows(of: "task_lists")[id.uuidString.lowercased()]?["version"] == .int(1))
        let back = try await server.guardedUpdate(
            table, id: id, baseVersion: "1", set: ColumnValues(["name": .text("Home")]), extraFilters: [],
            returning: ["id", "version", "name"], as: alice
        )
        #expect(back.first?["version"] == .int(2) && back.first?["name"] == .text("Home"))
        let stale = try await server.guardedUpdate(
            table, id: id, baseVersion: "1", set: ColumnValues(["name": .text("Work")]), extraFilters: [], returning: ["id"], as: alice
        )
        #expect(stale.isEmpty)
        #expect(try await server.fetch(table, id: id, columns: ["name"], as: alice)?["name"] == .text("Home"))
        #expect(try await server.fetch(table, id: id, columns: ["name"], as: bob) == nil)
    }

    @Test func timestampVersionsIncreaseAsPostgRESTWritesThem() {
        #expect(InMemoryServer.timestampText(microseconds: 1_760_792_427_486_123) == "2025-10-18T13:00:27.486123+00:00")
        #expect(InMemoryServer.timestampText(microseconds: 1_760_792_427_000_000) == "2025-10-18T13:00:27+00:00")
        #expect(InMemoryServer.timestampText(microseconds: 1_760_792_427_500_000) == "2025-10-18T13:00:27.5+00:00")
    }

    @Test func controlsFailLoseAndDrop() async throws {
        await server.failNextRequests(
            1, with: SyncError(.server, "boom", serverError: ServerError(status: 503, code: nil, message: "down")))
        await #expect(throws: SyncError.self) { try await server.pull(sessions, after: 0, limit: 1, as: alice) }
        await server.loseNextAnswers(1)
        let id = UUID()
        await #expect(throws: SyncError.self) {
            try await server.upsert([session(id, owner: alice, start: 1, end: 2, updated: 1)], into: sessions, as: alice)
        }
        #expect(await server.rows(of: "sessions")[id.uuidString.lowercased()] != nil)
        await server.dropColumn("note", from: "sessions")
        await #expect {
            try await server.upsert([session(UUID(), owner: alice, start: 1, end: 2, updated: 1)], into: sessions, as: alice)
        } throws: { error in
            (error as? SyncError)?.serverError?.message == "Could not find the 'note' column of 'sessions' in the schema cache"
        }
        await server.setOnline(false)
        await #expect {
            try await server.pull(sessions, after: 0, limit: 1, as: alice)
        } throws: { ($0 as? SyncError)?.isNetworkFailure == true }
    }
}

/// Given a clock, the in-memory server refuses claims as the triggers do, and answers with the
/// rows it wrote as they stand.
@Suite struct InMemoryServerClockTests {
    let now: Int64 = 1_800_000_000_000
    let day: Int64 = 86_400_000
    let alice = Credentials(userID: UUID(), accessToken: "a")

    var server: InMemoryServer { InMemoryServer(tables: [HopeFixture.activities], clock: { [now] in now }) }

    /// An activities row as a device sends it: every column stamped `stamp`.
    func activity(_ id: UUID, name: String, stamp: Int64, device: String = "d1") -> ColumnValues {
        let table = HopeFixture.activities
        let merge = RowMerge(table)
        let stamps = ColumnStamps(stamping: merge.stamped, with: WriteStamp(ms: stamp, deviceID: device))
        let values: [String: SyncValue] = [
            "id": .text(id.uuidString.lowercased()), "user_id": .text(alice.userID.uuidString.lowercased()), "name": .text(name),
            "color": .text("#000"), "archived": .bool(false), "sort_order": .double(0), "metadata": .null, "updated_ms": .int(stamp),
            "deleted_ms": .null, "device_id": .text(device), "column_stamps": .text(stamps.json),
        ]
        let columns = table.columnNames.filter { $0 != "server_seq" }
        return ColumnValues(columns: columns, values: columns.map { values[$0]! })
    }

    @Test func aClaimMoreThanADayPastTheClockIsRefused() async throws {
        let server = server
        let id = UUID()
        await #expect {
            try await server.upsert([activity(id, name: "ahead", stamp: now + day + 1)], into: HopeFixture.activities, as: alice)
        } throws: { ($0 as? SyncError)?.serverError?.code == "22008" }
        let taken = try await server.upsert([activity(id, name: "in time", stamp: now + day - 1)], into: HopeFixture.activities, as: alice)
        #expect(taken.rows.first?["name"] == .text("in time"))
        #expect(taken.serverTimeMs == now)
    }

    @Test func theAnswerHoldsTheRowsAsWrittenAndLeavesOutThoseThatLost() async throws {
        let server = server
        let (a, b) = (UUID(), UUID())
        try await server.upsert([activity(a, name: "newer", stamp: now)], into: HopeFixture.activities, as: alice)
        let answer = try await server.upsert(
            [activity(a, name: "older", stamp: now - 10), activity(b, name: "new", stamp: now - 10)], into: HopeFixture.activities,
            as: alice)
        #expect(answer.rows.map { $0["name"] } == [.text("new")])
        #expect(answer.rows.first?["server_seq"] == .int(2))
        let pulled = try await server.pull(HopeFixture.activities, after: 0, limit: 10, as: alice)
        #expect(pulled.serverTimeMs == now)
    }
}
