import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// Tests/Fixtures/RustClient: the habit app's desktop client in Rust (rusqlite and the generated
/// tables.rs), against the same SQLite files as the Swift runtime in the habit app. In the
/// habit app's serialized suite, since they run its executable.
extension HabitAppTests {
    @Test func rustClientBuildsOfflineWithoutWarningsUsingPartOfTablesRs() async throws {
        let build = try await Cargo.build()
        #expect(build.status == 0, "\(build.output)")
    }

    /// Rust migrates a new file and saves a row; Swift opens it (adding its bookkeeping), reads
    /// the row and saves one; Rust reads both. And a file Swift made, Rust reads.
    @Test func rustAndTheSwiftRuntimeOpenEachOthersDatabases() async throws {
        try #require(try await Cargo.build().status == 0)
        try #require(try await SwiftPM.run(["build"], in: SwiftPM.habitApp).status == 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rust-swift-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let byRust = folder.appendingPathComponent("rust.sqlite").path
        let bySwift = folder.appendingPathComponent("swift.sqlite").path

        #expect(try await Cargo.client("write", byRust).output == "habit: Written by Rust, 5 a week\n")
        let swiftReads = try await execute(SwiftPM.habitAppBinary, ["write", byRust], in: folder)
        #expect(swiftReads.status == 0, "\(swiftReads.output)")
        #expect(swiftReads.output == "habit: Written by Rust, 5 a week\nhabit: Written by Swift, 2 a week\n")
        #expect(try await Cargo.client("read", byRust).output.contains("habit: Written by Swift, 2 a week"))

        #expect(try await execute(SwiftPM.habitAppBinary, ["write", bySwift], in: folder).status == 0)
        let rustReads = try await Cargo.client("read", bySwift)
        #expect(rustReads.status == 0, "\(rustReads.output)")
        #expect(rustReads.output == "habit: Written by Swift, 2 a week\n")
    }

    /// docs/PROTOCOL.md is enough to write a client's merge: a pulled row renamed later by the
    /// phone, with an older per_week, keeps the local per_week, takes the name and the newest
    /// stamp, and stays dirty (its per_week still has to go up).
    @Test func rustMergesAPulledRowColumnByColumnAsTheProtocolSays() async throws {
        try #require(try await Cargo.build().status == 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rust-merge-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: file) }
        let merge = try await Cargo.client("merge", file.path)
        #expect(merge.status == 0, "\(merge.output)")
        #expect(
            merge.output.contains(
                "merged: name=Stretch daily, per_week=5, updated_ms=1764540000500, device_id=phone, server_seq=42, dirty=1"))
    }

    /// docs/PROTOCOL.md, "Pull in one request", is enough for a client: the habit app's
    /// generated SQL on a throwaway PostgreSQL, rows written there as the Rust client's user (and
    /// another user's habit, which row-level security keeps out), and every request the client
    /// prints run as that user's `select public.sync_pull(...)`, PostgREST's way. Pages of two:
    /// the first answer's habits page is full, so no mark is kept and the next request has no
    /// `since`; the second answer ends every page and its mark is kept. The request after that is
    /// answered with the mark alone, and applying that answer changes nothing.
    @Test func rustAppliesThePullFunctionsAnswersAsTheProtocolSays() async throws {
        try #require(try await Cargo.build().status == 0)
        let server = try PostgresCluster.createDatabase().connect()
        try server.execute(
            script: try String(contentsOf: SwiftPM.fixture.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8))
        // main.rs's USER.
        let user = try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000001"))
        let (habits, checkIn) = ((0..<3).map { _ in UUID().uuidString.lowercased() }, UUID().uuidString.lowercased())
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        try server.request(asUser: user) { connection in
            for (index, id) in habits.enumerated() {
                try connection.execute(
                    "insert into public.habits (id, name, per_week, updated_ms, device_id) values ($1, $2, $3, $4, 'phone')",
                    [id, "habit \(index)", String(index + 2), String(now + Int64(index))])
            }
            try connection.execute(
                "insert into public.check_ins (id, habit_id, day, updated_ms, device_id) values ($1, $2, '2026-11-30', $3, 'phone')",
                [checkIn, habits[0], String(now)])
        }
        let other = UUID()
        try server.request(asUser: other) {
            try $0.execute(
                "insert into public.habits (id, name, updated_ms, device_id) values ($1, 'theirs', $2, 'tablet')",
                [UUID().uuidString.lowercased(), String(now)])
        }
        let seqs = try server.execute(
            """
            select (select string_agg(server_seq::text, ',' order by server_seq) from public.habits where user_id = $1::uuid),
              (select server_seq::text from public.check_ins)
            """,
            [user.uuidString.lowercased()]
        ).rows[0]
        let habitSeqs = try #require(seqs[0]).split(separator: ",").compactMap { Int64($0) }
        let checkInSeq = try #require(seqs[1].flatMap { Int64($0) })
        try #require(habitSeqs.count == 3)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rust-pull-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("client.sqlite").path
        var answers = 0
        /// Runs the request the client printed last as `user`, and the client on its answer.
        func answerTheClient(_ output: String) async throws -> (answer: PulledJSON, output: String) {
            let request = try PullRequest(output)
            let text = try server.request(asUser: user) {
                try $0.execute(
                    "select public.sync_pull($1::jsonb, $2::bigint, $3::integer)::text",
                    [request.cursors, request.since, request.pageLimit]
                ).scalar
            }
            answers += 1
            let answerFile = folder.appendingPathComponent("answer-\(answers).json")
            try Data(try #require(text).utf8).write(to: answerFile)
            let applied = try await Cargo.client("pull-answer", file, answerFile.path, "2")
            #expect(applied.status == 0, "\(applied.output)")
            return (try PulledJSON(try #require(text)), applied.output)
        }

        let first = try await Cargo.client("pull-request", file, "2")
        #expect(first.status == 0, "\(first.output)")
        let request = try PullRequest(first.output)
        #expect(request.path == "/rest/v1/rpc/sync_pull", "tables.rs's PULL_FUNCTION")
        let sqlite = SwiftPM.fixture.appendingPathComponent("Generated/sqlite")
        let migrations = try FileManager.default.contentsOfDirectory(atPath: sqlite.path)
        #expect(request.schemaVersion == String(migrations.count), "tables.rs's SCHEMA_VERSION: its newest migration")
        #expect(request.cursorValues == ["habits": 0, "check_ins": 0] && request.since == nil && request.pageLimit == "2")

        let (full, afterFull) = try await answerTheClient(first.output)
        #expect(full.rows["habits"] == 2 && full.more["habits"] == true && full.rows["check_ins"] == 1)
        #expect(afterFull.contains("applied habits: 2 rows\n") && afterFull.contains("more: a page was full\n"), "\(afterFull)")
        #expect(afterFull.contains("mark: none\n"), "an answer with a full page is not whole: no mark is kept")
        let again = try PullRequest(afterFull)
        #expect(again.cursorValues == ["habits": habitSeqs[1], "check_ins": checkInSeq] && again.since == nil)

        let (rest, afterRest) = try await answerTheClient(afterFull)
        #expect(rest.rows["habits"] == 1 && rest.more["habits"] == false && rest.rows["check_ins"] == 0)
        #expect(afterRest.contains("cursor habits: \(habitSeqs[2])\n") && afterRest.contains("cursor check_ins: \(checkInSeq)\n"))
        #expect(afterRest.contains("mark: \(rest.mark)\n"), "\(afterRest)")
        #expect(afterRest.contains("check-in: 2026-11-30 of \(habits[0]), note none\n"))
        for (index, seq) in habitSeqs.enumerated() {
            #expect(
                afterRest.contains(
                    "habit: name=habit \(index), per_week=\(index + 2), updated_ms=\(now + Int64(index)), device_id=phone, server_seq=\(seq), dirty=0\n"
                ), "\(afterRest)")
        }
        #expect(!afterRest.contains("theirs"), "row-level security keeps the pull to the caller's rows")
        let next = try PullRequest(afterRest)
        #expect(next.since == String(rest.mark) && next.cursorValues == ["habits": habitSeqs[2], "check_ins": checkInSeq])

        // Nothing of the user's was written since: the answer is the mark alone, and applying it
        // changes nothing. (A transaction of another test open in the cluster holds the marks
        // back; until it ends the answers are whole again, with empty pages: no row changes.)
        var output = afterRest
        for _ in 0..<100 {
            let sent = try PullRequest(output)
            let (answer, applied) = try await answerTheClient(output)
            #expect(PullRequest.rows(of: applied) == PullRequest.rows(of: afterRest), "\(applied)")
            if answer.tables.isEmpty {
                #expect(sent.since.flatMap { Int64($0) } == answer.mark && applied.hasPrefix("idle: nothing new\n"), "\(applied)")
                #expect(PullRequest.state(of: applied) == PullRequest.state(of: output), "\(applied)")
                return
            }
            output = applied
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the pull function never answered with the mark alone: \(output)")
    }
}

/// The pull request a Rust client printed last (`next: GET /rest/v1/rpc/...?cursors=...`).
private struct PullRequest {
    let path: String
    let cursors: String
    let since: String?
    let pageLimit: String?
    /// The header the request carries with the build's schema version.
    let schemaVersion: String?

    init(_ output: String) throws {
        let lines = output.split(separator: "\n")
        let index = try #require(lines.lastIndex { $0.hasPrefix("next: GET ") })
        let line = lines[index]
        schemaVersion = lines.dropFirst(index + 1).first { $0.hasPrefix("X-Sync-Schema: ") }.map { String($0.dropFirst(15)) }
        let url = try #require(URLComponents(string: String(line.dropFirst("next: GET ".count))))
        let items = url.queryItems ?? []
        path = url.path
        cursors = try #require(items.first { $0.name == "cursors" }?.value)
        since = items.first { $0.name == "since" }?.value
        pageLimit = items.first { $0.name == "page_limit" }?.value
    }

    var cursorValues: [String: Int64] {
        let object = (try? JSONSerialization.jsonObject(with: Data(cursors.utf8))) as? [String: NSNumber] ?? [:]
        return object.mapValues(\.int64Value)
    }

    /// The lines that say what the client's file holds: rows, cursors, the mark, the next request.
    static func state(of output: String) -> [String] {
        lines(of: output, ["habit: ", "check-in: ", "cursor ", "mark: ", "next: "])
    }

    /// The lines of the client's rows and cursors.
    static func rows(of output: String) -> [String] {
        lines(of: output, ["habit: ", "check-in: ", "cursor "])
    }

    private static func lines(of output: String, _ prefixes: [String]) -> [String] {
        output.split(separator: "\n").map(String.init).filter { line in prefixes.contains { line.hasPrefix($0) } }
    }
}

/// The pull function's answer, read with Foundation's JSON reader: its mark and each table's
/// row count and `more`.
private struct PulledJSON {
    let mark: Int64
    let rows: [String: Int]
    let more: [String: Bool]
    var tables: [String] { rows.keys.sorted() }

    init(_ text: String) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        mark = try #require(object["mark"] as? NSNumber).int64Value
        let tables = object["tables"] as? [String: [String: Any]] ?? [:]
        rows = tables.mapValues { ($0["rows"] as? [Any])?.count ?? 0 }
        more = tables.mapValues { $0["more"] as? Bool ?? false }
    }
}
