import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncTestSupport
import Testing

/// The generated pull function on PostgreSQL: every table's page after its cursor in one call,
/// under row-level security, read-only, with the mark that tells an idle pass. A mark is a
/// snapshot's xmin, which every running transaction of the cluster holds back: the suite has a
/// cluster of its own and runs one test at a time, so what is idle here is decided by its
/// tests alone.
@Suite(.serialized) struct PullFunctionSQLTests {
    static let schema = Schema(tables: [
        Table(name: "notes", columns: [Column(name: "body", type: .text)]),
        Table(name: "loose_notes", exactOrdering: false, columns: [Column(name: "body", type: .text)]),
    ])
    let server: ServerDatabase
    let user = UUID()

    init() throws {
        server = try ServerDatabase.make(Self.schema, alone: true)
    }

    private func note(_ body: String, user: UUID? = nil, ms: Int = 1) -> [String: String?] {
        ["id": UUID().text, "user_id": (user ?? self.user).text, "body": body, "updated_ms": String(ms), "device_id": "d"]
    }

    /// The function's answer for `user`, parsed.
    private func pull(
        _ cursors: [String: Int], since: Int64? = nil, limit: Int = 1000, as user: UUID? = nil, readOnly: Bool = true
    ) throws -> PullAnswer {
        let text = try server.connection.request(asUser: user ?? self.user) { connection in
            if readOnly { try connection.execute("set transaction read only") }
            let cursorsText = "{" + cursors.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
            return try connection.execute(
                "select public.sync_pull($1::jsonb, $2::bigint, $3::integer)::text", [cursorsText, since.map(String.init), String(limit)]
            ).scalar
        }
        return try PullAnswer(try #require(text))
    }

    /// How many transactions of `user`'s the server keeps for the marks.
    private func markRows(of user: UUID) throws -> Int {
        Int(try server.connection.execute("select count(*) from public.sync_marks where user_id = $1::uuid", [user.text]).scalar ?? "0")
            ?? 0
    }

    /// A transaction of `user`'s left open after writing `row` to `table`.
    private func beginSlowWrite(_ table: String, row: [String: String?]) throws -> Connection {
        let connection = try server.database.connect()
        try connection.execute("begin")
        try connection.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"role":"authenticated","sub":"\#(user.text)"}"#])
        _ = try ServerDatabase.upsert(table, [row], on: connection)
        return connection
    }

    @Test func everyTableAskedForComesInOneReadOnlyCallAfterItsCursor() throws {
        try server.upsert("notes", as: user, (0..<3).map { note("n\($0)") })
        try server.upsert("loose_notes", as: user, [note("l0")])
        let all = try pull(["notes": 0, "loose_notes": 0])
        #expect(all.rows["notes"]?.map(\.body) == ["n0", "n1", "n2"])
        #expect(all.rows["loose_notes"]?.map(\.body) == ["l0"])
        let second = try #require(all.rows["notes"]?[1].serverSeq)
        let after = try pull(["notes": Int(second)])
        #expect(after.rows["notes"]?.map(\.body) == ["n2"])
        #expect(after.rows["loose_notes"] == nil, "a table not asked for is not read")
    }

    @Test func pagesStopAtTheLimitAndSayMore() throws {
        try server.upsert("notes", as: user, (0..<5).map { note("n\($0)") })
        let first = try pull(["notes": 0, "loose_notes": 0], limit: 2)
        #expect(first.rows["notes"]?.count == 2 && first.more["notes"] == true)
        #expect(first.more["loose_notes"] == false)
        let capped = try pull(["notes": 0], limit: 5_000)
        #expect(capped.rows["notes"]?.count == 5 && capped.more["notes"] == false)
    }

    @Test func rowLevelSecurityKeepsEveryTableToTheCallersRows() throws {
        let other = UUID()
        try server.upsert("notes", as: other, [note("theirs", user: other)])
        try server.upsert("notes", as: user, [note("mine")])
        #expect(try pull(["notes": 0]).rows["notes"]?.map(\.body) == ["mine"])
        #expect(try pull(["notes": 0], as: other).rows["notes"]?.map(\.body) == ["theirs"])
        #expect(throws: PostgresError.self) {
            try server.connection.request(as: .anon) { try $0.execute("select public.sync_pull('{}'::jsonb)") }
        }
    }

    @Test func onlyAWriteOfTheOwnersRowsEndsTheirIdlePasses() throws {
        try server.upsert("notes", as: user, [note("first")])
        let full = try pull(["notes": 0, "loose_notes": 0])
        #expect(full.rows["notes"]?.count == 1)
        let idle = try pull(["notes": 0, "loose_notes": 0], since: full.mark)
        #expect(idle.mark == full.mark && idle.tables.isEmpty)
        let other = UUID()
        try server.upsert("notes", as: other, [note("theirs", user: other)])
        #expect(try pull(["notes": 0], since: full.mark).tables.isEmpty, "another user's write is not this user's")
        var repeated = try #require(full.rows["notes"]?.first).fields
        repeated["body"] = "ignored"
        try server.upsert("notes", as: user, [repeated]) // the same pair: nothing written
        #expect(try pull(["notes": 0], since: full.mark).tables.isEmpty, "a statement that wrote nothing is no change")
        try server.upsert("loose_notes", as: user, [note("second")])
        let moved = try pull(["notes": 0, "loose_notes": 0], since: full.mark)
        #expect(moved.rows["loose_notes"]?.map(\.body) == ["second"])
        // One statement of the service role writing two owners ends both owners' idle passes.
        let calm = try pull(["notes": 0], since: nil).mark
        let theirs = try pull(["notes": 0], since: nil, as: other).mark
        try server.connection.request(as: .serviceRole) {
            _ = try ServerDatabase.upsert("notes", [note("a", user: user, ms: 5), note("b", user: other, ms: 5)], on: $0)
        }
        #expect(try pull(["notes": 0], since: calm).rows["notes"]?.count == 2)
        #expect(try pull(["notes": 0], since: theirs, as: other).rows["notes"]?.count == 2)
    }

    /// An idle pass reads no synced table: one index scan of the marks, counted by PostgreSQL
    /// for the calling transaction (pg_stat_xact_user_tables).
    @Test func anIdlePassIsOneIndexScanOfTheMarksAndNoTable() throws {
        try server.upsert("notes", as: user, [note("n")])
        try server.upsert("loose_notes", as: user, [note("l")])
        let mark = try pull(["notes": 0, "loose_notes": 0]).mark
        // A new session: PostgreSQL 15 keeps a session's unflushed counts of earlier
        // transactions in these views.
        let session = try server.database.connect()
        let scans = try session.request(asUser: user) { connection in
            _ = try connection.execute(
                "select public.sync_pull($1::jsonb, $2::bigint)", [#"{"notes": 0, "loose_notes": 0}"#, String(mark)])
            return try connection.execute(
                "select relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) from pg_stat_xact_user_tables where schemaname = 'public'"
            ).rows.reduce(into: [String: Int]()) { $0[$1[0]!] = Int($1[1]!)! }
        }
        #expect(scans["sync_marks"] == 1)
        #expect(scans["notes", default: 0] == 0 && scans["loose_notes", default: 0] == 0)
    }

    /// One mark a writing transaction; one whose id is a multiple of 16 deletes the owner's
    /// marks that no running transaction can still miss, its own kept.
    @Test func writesPruneTheMarksNoPullCanNeedInBatches() throws {
        var expected = try markRows(of: user)
        var prunes = 0
        for index in 0..<2_000 {
            if prunes >= 2 && index >= 40 { break }
            try server.upsert("notes", as: user, [note("n\(index)")])
            let xid = try #require(
                Int64(
                    try server.connection.execute(
                        "select max(xid::text::bigint) from public.sync_marks where user_id = $1::uuid", [user.text]
                    ).scalar ?? ""))
            if xid % 16 == 0 {
                expected = 1
                prunes += 1
            } else {
                expected += 1
            }
            #expect(try markRows(of: user) == expected, "after the write of transaction \(xid)")
        }
        #expect(prunes >= 2)
    }

    /// The once-a-transaction memory of a mark is undone with a rolled-back savepoint, as the
    /// mark itself is: the write after it is marked again.
    @Test func aWriteAfterARolledBackOneIsStillMarked() throws {
        let full = try pull(["notes": 0, "loose_notes": 0])
        try server.connection.request(asUser: user) { connection in
            try connection.execute("savepoint before")
            _ = try ServerDatabase.upsert("notes", [note("undone")], on: connection)
            try connection.execute("rollback to savepoint before")
            _ = try ServerDatabase.upsert("notes", [note("kept")], on: connection)
        }
        #expect(try pull(["notes": 0, "loose_notes": 0], since: full.mark).rows["notes"]?.map(\.body) == ["kept"])
    }

    /// A lookback table's writes take no owner lock: one of the owner's may commit after a later
    /// one and after a pull. Its transaction is past the pull's mark, so the next pass reads.
    @Test func aWriteThatCommitsAfterThePullIsNeverSkipped() throws {
        let slow = try beginSlowWrite("loose_notes", row: note("slow"))
        try server.upsert("loose_notes", as: user, [note("fast")]) // does not wait for the slow one
        let before = try pull(["notes": 0, "loose_notes": 0])
        #expect(before.rows["loose_notes"]?.map(\.body) == ["fast"])
        try slow.execute("commit")
        let after = try pull(["notes": 0, "loose_notes": 0], since: before.mark)
        #expect(after.rows["loose_notes"]?.map(\.body).sorted() == ["fast", "slow"])
        let next = try pull(["notes": 0, "loose_notes": 0], since: after.mark)
        #expect(next.tables.isEmpty)
    }

    @Test func theMarkAloneAnswersWhenNothingWasWrittenSince() throws {
        try server.upsert("notes", as: user, [note("n")])
        let full = try pull(["notes": 0, "loose_notes": 0])
        #expect(full.tables == ["loose_notes", "notes"])
        let idle = try pull(["notes": 0, "loose_notes": 0], since: full.mark)
        #expect(idle.mark == full.mark && idle.tables.isEmpty)
        try server.upsert("loose_notes", as: user, [note("l")])
        let moved = try pull(["notes": 0, "loose_notes": 0], since: full.mark)
        #expect(moved.rows["loose_notes"]?.count == 1)
    }

    /// The mark and every table are read in the calling statement's snapshot (a stable
    /// function's queries all are): here a repeatable-read request's, taken before two writes
    /// commit, so neither those rows are in the answer nor does its mark hide them later.
    @Test func theMarkAndEveryTableComeFromTheCallersSnapshot() throws {
        try server.upsert("notes", as: user, [note("before")])
        let snapshot = try server.database.connect()
        try snapshot.execute("begin isolation level repeatable read read only")
        try snapshot.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"role":"authenticated","sub":"\#(user.text)"}"#])
        _ = try snapshot.execute("select 1") // the snapshot starts here
        try server.upsert("notes", as: user, [note("after")])
        try server.upsert("loose_notes", as: user, [note("after")])
        let text = try #require(
            try snapshot.execute(
                "select public.sync_pull($1::jsonb)::text", [#"{"notes": 0, "loose_notes": 0}"#]
            ).scalar)
        try snapshot.execute("commit")
        let answer = try PullAnswer(text)
        #expect(answer.rows["notes"]?.map(\.body) == ["before"])
        #expect(answer.rows["loose_notes"]?.isEmpty == true)
        let next = try pull(["notes": 0, "loose_notes": 0], since: answer.mark)
        #expect(next.rows["notes"]?.map(\.body) == ["before", "after"] && next.rows["loose_notes"]?.count == 1)
    }

    /// Random rows of two users in both tables, paged through with random limits: the function
    /// gives each table exactly the pages the table pulls give (the same rows, in the same
    /// order, with "more" where the page is full), and never another user's row.
    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        let runs = environment["PULL_FUNCTION_RUNS"].flatMap(UInt64.init) ?? 8
        let first = environment["PULL_FUNCTION_SEED"].flatMap(UInt64.init) ?? 1
        return Array(first..<(first + runs))
    }()

    @Test(arguments: seeds)
    func theFunctionGivesWhatTheTablePullsGive(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let other = UUID()
        for _ in 0..<Int.random(in: 3...12, using: &random) {
            let owner = Bool.random(using: &random) ? user : other
            let table = Bool.random(using: &random) ? "notes" : "loose_notes"
            let count = Int.random(in: 1...6, using: &random)
            try server.upsert(table, as: owner, (0..<count).map { _ in note("r\(Int.random(in: 0..<1000, using: &random))", user: owner) })
        }
        for caller in [user, other] {
            var cursors = ["notes": 0, "loose_notes": 0]
            while !cursors.isEmpty {
                let limit = Int.random(in: 1...7, using: &random)
                let answer = try pull(cursors, limit: limit, as: caller)
                for (table, cursor) in cursors {
                    let expected = try tablePull(table, after: cursor, limit: limit, as: caller)
                    let got = try #require(answer.rows[table])
                    #expect(got.map(\.serverSeq) == expected.map(\.seq), "seed \(seed): \(table) after \(cursor)")
                    #expect(got.allSatisfy { $0.userID == caller.text })
                    #expect(answer.more[table] == (expected.count == limit))
                    if expected.count == limit { cursors[table] = Int(expected.last!.seq) } else { cursors[table] = nil }
                }
            }
        }
    }

    /// One table pull as PostgREST runs it for the runtime: the caller's rows past the cursor.
    private func tablePull(_ table: String, after cursor: Int, limit: Int, as caller: UUID) throws -> [(id: String, seq: Int64)] {
        try server.connection.request(asUser: caller) {
            try $0.execute(
                "select id::text, server_seq from public.\(table) where server_seq > $1 order by server_seq limit $2",
                [String(cursor), String(limit)]
            ).rows.map { ($0[0]!, Int64($0[1]!)!) }
        }
    }

    @Test func theFunctionIsStableAndRunsAsItsCaller() throws {
        let row = try #require(
            try server.connection.execute(
                "select provolatile::text, prosecdef::text, array_to_string(proconfig, ',') from pg_proc where proname = 'sync_pull'"
            ).rows.first)
        #expect(row[0] == "s", "stable: PostgREST calls it with GET, and a read replica can")
        #expect(row[1] == "false", "security invoker: row-level security decides")
        #expect(row[2] == #"search_path="""#)
    }
}

/// The pull function's answer, read with Foundation's JSON reader (not the runtime's).
struct PullAnswer {
    struct Row {
        let body: String
        let serverSeq: Int64
        let userID: String
        /// The row's columns as the tests' upserts take them.
        let fields: [String: String?]
    }

    let mark: Int64
    let rows: [String: [Row]]
    let more: [String: Bool]
    var tables: [String] { rows.keys.sorted() }

    init(_ text: String) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        mark = (object["mark"] as? NSNumber)?.int64Value ?? -1
        var rows: [String: [Row]] = [:]
        var more: [String: Bool] = [:]
        for (name, value) in object["tables"] as? [String: Any] ?? [:] {
            let page = value as? [String: Any] ?? [:]
            rows[name] = (page["rows"] as? [[String: Any]] ?? []).map {
                Row(
                    body: $0["body"] as? String ?? "", serverSeq: ($0["server_seq"] as? NSNumber)?.int64Value ?? -1,
                    userID: $0["user_id"] as? String ?? "",
                    fields: [
                        "id": $0["id"] as? String, "user_id": $0["user_id"] as? String, "body": $0["body"] as? String,
                        "updated_ms": ($0["updated_ms"] as? NSNumber).map { "\($0)" }, "device_id": $0["device_id"] as? String,
                    ])
            }
            more[name] = page["more"] as? Bool
        }
        self.rows = rows
        self.more = more
    }
}
