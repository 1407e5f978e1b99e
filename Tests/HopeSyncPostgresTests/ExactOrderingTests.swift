import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncTestSupport
import Testing

/// server_seq is taken when a row is written, not when it commits. Two real connections show
/// what that does to a pull that walks server_seq, with and without exact ordering.
@Suite struct ExactOrderingTests {
    static let schema = Schema(tables: [
        Table(name: "loose_events", exactOrdering: false, columns: [Column(name: "body", type: .text)]),
        Table(name: "exact_events", exactOrdering: true, columns: [Column(name: "body", type: .text)]),
    ])
    let server: ServerDatabase
    let user = UUID()

    init() throws {
        server = try ServerDatabase.make(Self.schema)
        // These tests hold a writer open while another waits for the owner's lock: the wait is
        // not bounded here, so a slow machine does not end it.
        try server.connection.execute("alter database \(server.database.name) set hope_sync.owner_lock_timeout = '0'")
        try server.connection.execute("set hope_sync.owner_lock_timeout = '0'")
    }

    private func event(_ id: UUID = UUID(), body: String) -> [String: String?] {
        ["id": id.text, "user_id": user.text, "body": body, "updated_ms": "1", "device_id": "d"]
    }

    /// Opens a request that writes one row and stays open until the caller commits it.
    private func beginSlowWrite(_ table: String, row: [String: String?]) throws -> Connection {
        let connection = try server.database.connect()
        try connection.execute("begin")
        try connection.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"role":"authenticated","sub":"\#(user.text)"}"#])
        try ServerDatabase.upsert(table, [row], on: connection)
        return connection
    }

    /// One pull page as the runtime asks for it: rows past the cursor less the lookback.
    private func pull(_ table: String, after cursor: Int, lookback: Int, from connection: Connection) throws -> [(id: String, seq: Int)] {
        try connection.request(asUser: user) {
            try $0.execute(
                "select id, server_seq from public.\(table) where server_seq > $1 order by server_seq limit 500",
                [String(cursor - lookback)]
            ).rows.map { ($0[0]!, Int($0[1]!)!) }
        }
    }

    @Test func aLookbackOf50MissesARowForeverWhenAnotherTransactionTakesMore() throws {
        let slowRow = UUID()
        let slow = try beginSlowWrite("loose_events", row: event(slowRow, body: "slow"))
        try server.upsert("loose_events", as: user, (0..<60).map { event(body: "fast \($0)") })

        let puller = try server.database.connect()
        var seen: Set<String> = []
        var cursor = 0
        for row in try pull("loose_events", after: cursor, lookback: 50, from: puller) {
            seen.insert(row.id)
            cursor = max(cursor, row.seq)
        }
        try slow.execute("commit")
        for _ in 0..<3 {
            for row in try pull("loose_events", after: cursor, lookback: 50, from: puller) {
                seen.insert(row.id)
                cursor = max(cursor, row.seq)
            }
        }
        #expect(seen.count == 60)
        #expect(!seen.contains(slowRow.text))
        #expect(try server.row("loose_events", slowRow) != nil, "the row is there, the pull just never sees it")
    }

    @Test func exactOrderingMakesTheOwnersOtherWritesWaitSoNoPullMissesARow() throws {
        let slowRow = UUID()
        let slow = try beginSlowWrite("exact_events", row: event(slowRow, body: "slow"))

        // Another owner is not held up (it would time out instead of hanging).
        let stranger = UUID()
        try server.connection.request(asUser: stranger) {
            try $0.execute("set local lock_timeout = '10s'")
            try ServerDatabase.upsert(
                "exact_events", [["id": UUID().text, "user_id": stranger.text, "body": "other", "updated_ms": "1", "device_id": "d"]],
                on: $0)
        }

        // The same owner's next request, on a connection of its own, waits for the slow one.
        let fast = try server.database.connect()
        let rows = (0..<60).map { event(body: "fast \($0)") }
        let fastDone = DispatchSemaphore(value: 0)
        let fastError = Locked<(any Error)?>(nil)
        let user = self.user
        DispatchQueue.global().async {
            do {
                try fast.request(asUser: user) { try ServerDatabase.upsert("exact_events", rows, on: $0) }
            } catch {
                fastError.value = error
            }
            fastDone.signal()
        }
        try waitForAdvisoryLockWaiter()

        let puller = try server.database.connect()
        var seen: [String] = []
        var cursor = 0
        func pullAll() throws {
            while true {
                let page = try pull("exact_events", after: cursor, lookback: 0, from: puller)
                guard !page.isEmpty else { return }
                seen += page.map(\.id)
                cursor = page.last!.seq
            }
        }
        try pullAll()
        #expect(seen.isEmpty, "nothing of this owner has committed yet")

        try slow.execute("commit")
        fastDone.wait()
        #expect(fastError.value == nil)
        try pullAll()
        #expect(seen.count == 61)
        #expect(seen.first == slowRow.text, "the slow row took the lower server_seq and committed first")
    }

    @Test func anUpdateWaitingForTheOwnerHoldsNoRowTheUpsertNeeds() throws {
        // An UPDATE locks its rows before row triggers run; were the owner's lock taken only
        // there, this interleaving would deadlock (and PostgreSQL would abort one request).
        let first = UUID()
        let second = UUID()
        try server.upsert("exact_events", as: user, [event(first, body: "1"), event(second, body: "2")])
        let upsert = try beginSlowWrite("exact_events", row: event(first, body: "1 again").merging(["updated_ms": "2"]) { $1 })

        let patch = try server.database.connect()
        let patchDone = DispatchSemaphore(value: 0)
        let patchError = Locked<(any Error)?>(nil)
        let (user, secondText) = (self.user, second.text)
        DispatchQueue.global().async {
            do {
                try patch.request(asUser: user) {
                    try $0.execute("update public.exact_events set body = 'patched', updated_ms = 3 where id = $1", [secondText])
                }
            } catch {
                patchError.value = error
            }
            patchDone.signal()
        }
        try waitForAdvisoryLockWaiter()
        try ServerDatabase.upsert("exact_events", [event(second, body: "2 again").merging(["updated_ms": "2"]) { $1 }], on: upsert)
        try upsert.execute("commit")
        patchDone.wait()
        #expect(patchError.value == nil)
        #expect(try server.row("exact_events", second)?["body"] == "patched")
    }

    /// Waits until a backend waits for an advisory lock (the deadline only ends a hung test).
    private func waitForAdvisoryLockWaiter() throws {
        let hangGuard = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < hangGuard {
            let waiting = try server.connection.execute(
                "select count(*) from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())"
            ).scalar
            if waiting != "0" { return }
            usleep(50_000)
        }
        Issue.record("the second request never waited for the owner's lock")
    }
}
