import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// sessions declares one_open_per_owner (started_ms, ended_ms): whatever order rows arrive in,
/// each user ends with exactly one open session, and every close is itself a synced write.
@Suite struct OpenRowTests {
    let server: ServerDatabase
    let user = UUID()

    init() throws {
        server = try ServerDatabase.make()
    }

    private func push(_ rows: [[String: String?]]) throws {
        try server.upsert("sessions", as: user, rows)
    }

    private func openSessions() throws -> [String] {
        try server.connection.execute(
            "select id from public.sessions where user_id = $1 and ended_ms is null and deleted_ms is null",
            [user.text]
        ).rows.compactMap { $0[0] }
    }

    private func stored(_ id: UUID) throws -> QueryResult.Row {
        try #require(try server.row("sessions", id))
    }

    private func endStamp(_ id: UUID) throws -> String? {
        try server.connection.execute("select column_stamps ->> 'ended_ms' from public.sessions where id = $1", [id.text]).scalar
    }

    @Test func aNewerOpenSessionClosesTheOlderOneInAWayThatSyncs() throws {
        let older = UUID()
        let newer = UUID()
        try push([session(older, user: user, start: 100, updatedMs: 1_000, device: "phone")])
        let before = try stored(older)
        try push([session(newer, user: user, start: 200, updatedMs: 500, device: "watch")])
        let closed = try stored(older)
        #expect(closed["ended_ms"] == "200")
        // The server's own write: device id '' (no device has it), stamped past the stored end,
        // and a new server_seq, so every device pulls it.
        #expect(closed["updated_ms"] == "1001")
        #expect(closed["device_id"] == "")
        let stamp = try #require(try endStamp(older))
        #expect(stamp == "000000000001001:")
        // The phone sent no stamps, so it set ended_ms at its pair; the close beats it bytewise.
        #expect(stamp > "000000000001000:phone")
        #expect(Int(closed["server_seq"]!)! > Int(before["server_seq"]!)!)
        #expect(try openSessions() == [newer.text])
    }

    @Test func anOlderOpenSessionArrivingLateIsClosedAtTheNewerStart() throws {
        let newer = UUID()
        let late = UUID()
        try push([session(newer, user: user, start: 200, updatedMs: 500)])
        try push([session(late, user: user, start: 100, updatedMs: 900, device: "phone")])
        let closed = try stored(late)
        #expect(closed["ended_ms"] == "200")
        // The server's own write, beating the sender's own copy, so the sender pulls the close.
        #expect(closed["updated_ms"] == "901")
        #expect(closed["device_id"] == "")
        #expect(try endStamp(late) == "000000000000901:")
        #expect(try openSessions() == [newer.text])
        #expect(try stored(newer)["ended_ms"] == nil)
    }

    @Test func theSameStartKeepsTheLargerId() throws {
        let ids = [UUID(), UUID()].sorted { $0.text < $1.text }
        for order in [[0, 1], [1, 0]] {
            let server = try ServerDatabase.make()
            for index in order {
                try server.upsert("sessions", as: user, [session(ids[index], user: user, start: 300, updatedMs: 10)])
            }
            let open = try server.connection.execute(
                "select id from public.sessions where ended_ms is null"
            ).rows.compactMap { $0[0] }
            #expect(open == [ids[1].text], "arrival order \(order)")
            #expect(try server.row("sessions", ids[0])?["ended_ms"] == "300")
        }
    }

    @Test func reopeningThroughAnUpsertClosesTheOthers() throws {
        let first = UUID()
        let second = UUID()
        try push([session(first, user: user, start: 100, end: 150, updatedMs: 10)])
        try push([session(second, user: user, start: 200, updatedMs: 20)])
        // A newer edit that starts the first one again later than the second.
        try push([session(first, user: user, start: 300, updatedMs: 30)])
        #expect(try openSessions() == [first.text])
        #expect(try stored(second)["ended_ms"] == "300")
        // An older edit that would reopen it is discarded with everything else it says.
        try push([session(second, user: user, start: 400, updatedMs: 20)])
        #expect(try openSessions() == [first.text])
    }

    @Test func twoOpenSessionsInOneBatchLeaveOneOpenInEitherOrder() throws {
        for newerFirst in [true, false] {
            let server = try ServerDatabase.make()
            let older = UUID()
            let newer = UUID()
            let running = UUID()
            try server.upsert("sessions", as: user, [session(running, user: user, start: 50, updatedMs: 1)])
            let batch = [session(older, user: user, start: 100, updatedMs: 5), session(newer, user: user, start: 200, updatedMs: 5)]
            try server.upsert("sessions", as: user, newerFirst ? batch.reversed() : batch)
            let open = try server.connection.execute("select id from public.sessions where ended_ms is null").rows.compactMap { $0[0] }
            #expect(open == [newer.text], "newer first: \(newerFirst)")
            #expect(try server.row("sessions", running)?["ended_ms"] != nil)
            #expect(try server.row("sessions", older)?["ended_ms"] == "200")
        }
    }

    @Test func deletedSessionsDoNotCountAsOpen() throws {
        let deleted = UUID()
        let open = UUID()
        try push([session(deleted, user: user, start: 500, updatedMs: 10, deletedMs: 10)])
        try push([session(open, user: user, start: 100, updatedMs: 20)])
        #expect(try stored(open)["ended_ms"] == nil)
        #expect(try stored(deleted)["ended_ms"] == nil)
    }

    @Test func eachUserKeepsTheirOwnOpenSession() throws {
        let other = UUID()
        try push([session(UUID(), user: user, start: 100, updatedMs: 1)])
        try server.upsert("sessions", as: other, [session(UUID(), user: other, start: 200, updatedMs: 1)])
        #expect(try openSessions().count == 1)
        #expect(try server.connection.execute("select count(*) from public.sessions where ended_ms is null").scalar == "2")
    }
}
