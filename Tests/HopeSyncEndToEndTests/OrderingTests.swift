import Dispatch
import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncPostgresClient
import HopeSyncTestSupport
import Testing

/// What concurrency on the server does to what devices see: commits out of sequence order
/// (exact mode), and the one-running-session rule across devices.
@Suite struct OrderingTests {
    let user = UUID()

    /// Opens a transaction on `connection` as PostgREST would for `user`, and leaves it open.
    func begin(_ connection: Connection) throws {
        try connection.execute("begin")
        try connection.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"sub": "\#(user.uuidString.lowercased())", "role": "authenticated"}"#])
    }

    func insertActivity(_ id: UUID, _ name: String, on connection: Connection) throws {
        try connection.execute(
            "insert into public.activities (id, name, updated_ms, device_id) values ($1, $2, 1, 'server-test')",
            [id.uuidString, name])
    }

    @Test func aPullBetweenTwoConcurrentCommitsStillEndsWithBothRows() async throws {
        let server = try TestServer(ownerLockWaitsUnbounded: true)
        #expect(Activity.table.ordering == .exact)
        let device = try Device("reader", user: user, transport: server.transport)
        let firstID = UUID()
        let secondID = UUID()
        let first = try server.database.connect()
        let second = try server.database.connect()
        let observer = try server.database.connect()

        // The first transaction writes its row (taking a sequence number) and stays open.
        try begin(first)
        try insertActivity(firstID, "first", on: first)
        // The second writes its row on another connection: in exact mode it must wait for the
        // first to commit before it takes a sequence number.
        let secondWrite = Task {
            try await Self.blocking {
                try begin(second)
                try insertActivity(secondID, "second", on: second)
            }
        }
        #expect(
            await eventually {
                (try? observer.execute(
                    "select count(*) from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())"
                ).scalar) == "1"
            })
        try await device.sync()
        #expect(try device.rows(of: Activity.table).isEmpty)

        try first.execute("commit")
        try await secondWrite.value
        // Between the two commits: the device sees the first row and moves its cursor past it.
        try await device.sync()
        #expect(Set(try device.rows(of: Activity.table).keys) == [firstID.uuidString.lowercased()])

        try second.execute("commit")
        try await device.sync()
        let rows = try device.rows(of: Activity.table)
        #expect(Set(rows.keys) == Set([firstID, secondID].map { $0.uuidString.lowercased() }))
        let firstSeq = try #require(rows[firstID.uuidString.lowercased()]?["server_seq"]?.int)
        let secondSeq = try #require(rows[secondID.uuidString.lowercased()]?["server_seq"]?.int)
        #expect(firstSeq < secondSeq)
    }

    /// A request stuck behind another transaction (here the owner's ordering lock) is cancelled
    /// on the server when its task is: it fails as cancelled at once, not after the statement
    /// timeout, and writes nothing.
    @Test func cancellingARequestCancelsItsStatementOnTheServer() async throws {
        let server = try TestServer(ownerLockWaitsUnbounded: true)
        let holder = try server.database.connect()
        let observer = try server.database.connect()
        try begin(holder)
        try insertActivity(UUID(), "holds the owner's lock", on: holder)

        let id = UUID()
        let row = ColumnValues(
            columns: Activity.table.columnNames.filter { $0 != "server_seq" && $0 != "column_stamps" },
            values: [
                .text(id.uuidString.lowercased()), .text(user.uuidString.lowercased()), .text("waits"), .text("#000000"),
                .bool(false), .double(0), .null, .int(1), .null, .text("phone"),
            ])
        let credentials = Credentials(userID: user, accessToken: "unused by libpq")
        let transport = server.transport
        let push = Task { () async -> SyncError? in
            do throws(SyncError) {
                try await transport.upsert([row], into: Activity.table, as: credentials)
                return nil
            } catch {
                return error
            }
        }
        #expect(
            await eventually {
                (try? observer.execute(
                    "select count(*) from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())"
                ).scalar) == "1"
            })
        let started = ContinuousClock.now
        push.cancel()
        let outcome = await push.value
        #expect(ContinuousClock.now - started < .seconds(10))
        let error = try #require(outcome, "the cancelled push went through")
        #expect(error.code == .cancelled)
        #expect(!error.isNetworkFailure)
        #expect(
            try observer.execute(
                "select count(*) from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())"
            ).scalar == "0")
        try holder.execute("commit")
        #expect(try observer.execute("select count(*) from public.activities where id = $1", [id.uuidString]).scalar == "0")
    }

    /// Runs a blocking libpq call off Swift's cooperative threads.
    static func blocking(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    @Test(arguments: [true, false])
    func onlyOneSessionRunsAcrossDevices(olderComesBackFirst: Bool) async throws {
        let server = try TestServer(ownerLockWaitsUnbounded: true)
        let desk = try Device("desk", user: user, transport: server.transport)
        let phone = try Device("phone", user: user, transport: server.transport)
        let work = try await desk.store.write { try $0.save(Activity(name: "Work")) }
        try await desk.sync()
        try await phone.sync()

        // Offline, the desk starts a timer, then the phone starts another.
        let older = try await desk.store.write { try $0.save(Session(activityId: work.id, startedMs: 1_000, source: .desktop)) }
        let newer = try await phone.store.write { try $0.save(Session(activityId: work.id, startedMs: 2_000, source: .phone)) }
        let order = olderComesBackFirst ? [desk, phone, desk] : [phone, desk, phone]
        for device in order { try await device.sync() }

        let serverRows = try await server.rows(of: Session.table, for: user)
        for device in [desk, phone] {
            let sessions = try await device.store.read { try $0.fetchAll(Session.self) }
            #expect(sessions.filter { $0.endedMs == nil }.map(\.id) == [newer.id], "on \(device.name)")
            #expect(sessions.first { $0.id == older.id }?.endedMs == 2_000, "on \(device.name)")
            #expect(try device.rows(of: Session.table) == serverRows, "on \(device.name)")
        }
    }
}
