import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncTestSupport
import Testing

/// A request waiting for its owner's lock holds a connection of the API's pool, so the wait is
/// bounded: one request of an owner waits (for at most a second), and any other of the same
/// owner fails at once with 55P03 instead of queueing on a connection of its own.
@Suite struct OwnerLockWaitTests {
    static let schema = Schema(tables: [Table(name: "events", columns: [Column(name: "body", type: .text)])])
    let server: ServerDatabase
    let user = UUID()

    init() throws {
        server = try ServerDatabase.make(Self.schema)
    }

    private func event(body: String) -> [String: String?] {
        ["id": UUID().text, "user_id": user.text, "body": body, "updated_ms": "1", "device_id": "d"]
    }

    /// A request of `user` that wrote a row and holds the owner's lock until it commits.
    private func beginHoldingTheLock() throws -> Connection {
        let connection = try server.database.connect()
        try connection.execute("begin")
        try connection.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"role":"authenticated","sub":"\#(user.text)"}"#])
        try ServerDatabase.upsert("events", [event(body: "holding")], on: connection)
        return connection
    }

    /// Starts a write of `user` on a connection of its own; its outcome arrives on the result.
    private func writeInBackground() throws -> (done: DispatchSemaphore, error: Locked<PostgresError?>) {
        let connection = try server.database.connect()
        let done = DispatchSemaphore(value: 0)
        let error = Locked<PostgresError?>(nil)
        let (user, row) = (self.user, event(body: "waiting"))
        DispatchQueue.global().async {
            do {
                try connection.request(asUser: user) { try ServerDatabase.upsert("events", [row], on: $0) }
            } catch let failure as PostgresError {
                error.value = failure
            } catch {}
            done.signal()
        }
        return (done, error)
    }

    private func failure(writingAs user: UUID, _ row: [String: String?]) -> PostgresError? {
        do {
            try server.upsert("events", as: user, [row])
            return nil
        } catch {
            return error as? PostgresError
        }
    }

    @Test func oneRequestOfAnOwnerWaitsAndAnotherFailsAtOnceWith55P03() throws {
        let holder = try beginHoldingTheLock()
        let waiting = try writeInBackground()
        try waitForAdvisoryLockWaiter()

        let third = failure(writingAs: user, event(body: "third"))
        #expect(third?.sqlState == "55P03")

        try holder.execute("commit")
        waiting.done.wait()
        #expect(waiting.error.value == nil, "the one that waited wrote once the lock was free")
        let rows = try server.connection.execute("select body from public.events order by server_seq").rows.map { $0[0] ?? "" }
        #expect(rows == ["holding", "waiting"])
    }

    @Test func aWaitThatOutlastsItsBoundFailsWith55P03() throws {
        let holder = try beginHoldingTheLock()
        let waiting = try writeInBackground()
        waiting.done.wait()
        #expect(waiting.error.value?.sqlState == "55P03")
        try holder.execute("rollback")
    }

    @Test func anotherOwnerNeverWaits() throws {
        let holder = try beginHoldingTheLock()
        defer { _ = try? holder.execute("rollback") }
        let stranger = UUID()
        let row: [String: String?] = ["id": UUID().text, "user_id": stranger.text, "body": "other", "updated_ms": "1", "device_id": "d"]
        #expect(failure(writingAs: stranger, row) == nil)
    }

    @Test func aSignedInUserWaitsOnlyForTheirOwnLock() throws {
        let other = UUID()
        #expect(throws: PostgresError.self) {
            try server.connection.request(asUser: user) {
                try $0.execute("select public.sync_wait_for_owner($1::uuid)", [other.text])
            }
        }
        try server.connection.request(asUser: user) {
            try $0.execute("select public.sync_wait_for_owner($1::uuid)", [user.text])
        }
        try server.connection.request(as: .serviceRole) {
            try $0.execute("select public.sync_wait_for_owner($1::uuid)", [other.text])
        }
    }

    /// Waits until a backend waits for an advisory lock (the deadline only ends a hung test).
    private func waitForAdvisoryLockWaiter() throws {
        let hangGuard = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < hangGuard {
            let waiting = try server.connection.execute(
                "select count(*) from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())"
            ).scalar
            if waiting != "0" { return }
            usleep(10_000)
        }
        Issue.record("the second request never waited for the owner's lock")
    }
}
