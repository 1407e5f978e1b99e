import Foundation
import Postgres
import PostgresFixture
import SyncSchema
import Testing

/// The generated pull function on PostgreSQL: every table's page after its cursor in one call,
/// under row-level security, read-only, with the owner's mark that every write statement moves.
@Suite struct PullFunctionSQLTests {
    static let schema = Schema(tables: [
        Table(name: "notes", columns: [Column(name: "body", type: .text)]),
        Table(name: "loose_notes", exactOrdering: false, columns: [Column(name: "body", type: .text)]),
    ])
    let server: ServerDatabase
    let user = UUID()

    init() throws {
        server = try ServerDatabase.make(Self.schema)
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

    private func mark(of user: UUID) throws -> Int64 {
        Int64(try server.connection.execute("select mark from public.sync_marks where user_id = $1::uuid", [user.text]).scalar ?? "0") ?? 0
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

    @Test func theMarkMovesWithEveryStatementThatWritesTheOwnersRowsAndOnlyThen() throws {
        #expect(try mark(of: user) == 0)
        let row = note("first")
        try server.upsert("notes", as: user, [row])
        let first = try mark(of: user)
        #expect(first > 0)
        var repeated = row
        repeated["body"] = "ignored"
        try server.upsert("notes", as: user, [repeated])  // the same pair: nothing written
        #expect(try mark(of: user) == first)
        try server.upsert("loose_notes", as: user, [note("second")])
        let second = try mark(of: user)
        #expect(second > first)
        // One statement of the service role writing two owners moves both marks.
        let other = UUID()
        try server.connection.request(as: .serviceRole) {
            try ServerDatabase.upsert("notes", [note("a", user: user, ms: 5), note("b", user: other, ms: 5)], on: $0)
        }
        #expect(try mark(of: user) > second)
        #expect(try mark(of: other) > 0)
    }

    @Test func theMarkAloneAnswersWhenNothingWasWrittenSince() throws {
        try server.upsert("notes", as: user, [note("n")])
        let full = try pull(["notes": 0, "loose_notes": 0])
        #expect(full.tables == ["loose_notes", "notes"])
        let idle = try pull(["notes": 0, "loose_notes": 0], since: full.mark)
        #expect(idle.mark == full.mark && idle.tables.isEmpty)
        try server.upsert("loose_notes", as: user, [note("l")])
        let moved = try pull(["notes": 0, "loose_notes": 0], since: full.mark)
        #expect(moved.mark != full.mark && moved.rows["loose_notes"]?.count == 1)
    }

    /// The mark and every table are read in the calling statement's snapshot (a stable
    /// function's queries all are): here a repeatable-read request's, taken before two writes
    /// commit, so neither those rows nor the mark they moved are in the answer.
    @Test func theMarkAndEveryTableComeFromTheCallersSnapshot() throws {
        try server.upsert("notes", as: user, [note("before")])
        let before = try mark(of: user)
        let snapshot = try server.database.connect()
        try snapshot.execute("begin isolation level repeatable read read only")
        try snapshot.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"role":"authenticated","sub":"\#(user.text)"}"#])
        _ = try snapshot.execute("select 1")  // the snapshot starts here
        try server.upsert("notes", as: user, [note("after")])
        try server.upsert("loose_notes", as: user, [note("after")])
        let text = try #require(
            try snapshot.execute(
                "select public.sync_pull($1::jsonb)::text", [#"{"notes": 0, "loose_notes": 0}"#]
            ).scalar)
        try snapshot.execute("commit")
        let answer = try PullAnswer(text)
        #expect(answer.mark == before)
        #expect(answer.rows["notes"]?.map(\.body) == ["before"])
        #expect(answer.rows["loose_notes"]?.isEmpty == true)
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
                Row(body: $0["body"] as? String ?? "", serverSeq: ($0["server_seq"] as? NSNumber)?.int64Value ?? -1)
            }
            more[name] = page["more"] as? Bool
        }
        self.rows = rows
        self.more = more
    }
}
