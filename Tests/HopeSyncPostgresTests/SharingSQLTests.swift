import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import Testing

/// Sharing by scope (decision 0048) on PostgreSQL 15: the hand-written server SQL of
/// Tests/Fixtures/Sharing/sharing_prototype.sql over the project's schema.sql (task_lists a
/// scope, tasks and task_photos in a list's stream by list_id). An owner, an editor and a viewer
/// of one list, and an outsider.
@Suite(.serialized) struct SharingSQLTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let database: TestDatabase
    let connection: Connection
    let owner = UUID()
    let editor = UUID()
    let viewer = UUID()
    let outsider = UUID()
    let list = UUID()

    init() throws {
        database = try PostgresCluster.createDatabase(alone: true)
        connection = try database.connect()
        try Self.applySharingSQL(on: connection)
        // The ordering test holds a writer open while another waits: no bound on the wait here.
        try connection.execute("alter database \(database.name) set hope_sync.owner_lock_timeout = '0'")
        try createList(list, name: "groceries")
        try share(list, editor, "editor")
        try share(list, viewer, "viewer")
    }

    static func applySharingSQL(on connection: Connection) throws {
        for path in ["Generated/supabase/schema.sql", "Tests/Fixtures/Sharing/sharing_prototype.sql"] {
            try connection.execute(
                script: try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8))
        }
    }

    // MARK: Requests

    private func createList(_ id: UUID, name: String, as user: UUID? = nil) throws {
        let user = user ?? owner
        try connection.request(asUser: user) {
            try $0.execute(
                "insert into public.task_lists (id, user_id, name) values ($1, $2, $3)", [id.text, user.text, name])
        }
    }

    private func share(_ scope: UUID, _ member: UUID, _ role: String, as user: UUID? = nil) throws {
        try connection.request(asUser: user ?? owner) {
            try $0.execute("select public.task_lists_share($1, $2, $3)", [scope.text, member.text, role])
        }
    }

    @discardableResult
    private func writeTask(_ id: UUID = UUID(), title: String, list: UUID?, as user: UUID, on: Connection? = nil) throws -> UUID {
        try (on ?? connection).request(asUser: user) {
            try $0.execute(
                "insert into public.tasks (id, user_id, title, list_id) values ($1, $2, $3, $4)",
                [id.text, user.text, title, list?.text])
        }
        return id
    }

    /// The SQLSTATE `sql` fails with as `user` (nil: it succeeded).
    private func refusal(_ sql: String, _ parameters: [String?] = [], as user: UUID?) -> String? {
        do {
            if let user {
                try connection.request(asUser: user) { try $0.execute(sql, parameters) }
            } else {
                try connection.request(as: .anon) { try $0.execute(sql, parameters) }
            }
            return nil
        } catch let error as PostgresError {
            return error.sqlState
        } catch {
            return "\(error)"
        }
    }

    private func count(_ sql: String, _ parameters: [String?] = [], as user: UUID) throws -> Int {
        Int(try connection.request(asUser: user) { try $0.execute(sql, parameters).scalar } ?? "") ?? -1
    }

    private func pull(_ cursors: String, since: Int64? = nil, as user: UUID, on: Connection? = nil) throws -> [String: Any] {
        let text = try (on ?? connection).request(asUser: user) {
            try $0.execute(
                "select public.sync_pull($1::jsonb, $2::bigint)::text", [cursors, since.map(String.init)]
            ).scalar
        }
        let data = Data(try #require(text).utf8)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    // MARK: Membership

    @Test func membershipRequestsFollowTheRulesAndEachRefusalHasItsSQLSTATE() throws {
        let share = "select public.task_lists_share($1, $2, $3)"
        let unshare = "select public.task_lists_unshare($1, $2)"
        let leave = "select public.task_lists_leave($1)"
        let l = list.text
        // Only owners share; nobody adds themselves or changes their own role.
        #expect(refusal(share, [l, outsider.text, "viewer"], as: editor) == "42501")
        #expect(refusal(share, [l, outsider.text, "viewer"], as: viewer) == "42501")
        #expect(refusal(share, [l, UUID().text, "viewer"], as: outsider) == "42501")
        #expect(refusal(share, [l, outsider.text, "viewer"], as: outsider) == "HS001", "nobody adds themselves")
        #expect(refusal(share, [l, outsider.text, "viewer"], as: nil) == "42501", "anon may not call it")
        #expect(refusal(share, [l, outsider.text, "viewer"], as: owner) == nil)
        #expect(refusal(share, [l, outsider.text, "viewer"], as: owner) == nil, "a repeat changes nothing")
        #expect(refusal(share, [l, editor.text, "admin"], as: owner) == "22023")
        #expect(refusal(share, [l, owner.text, "editor"], as: owner) == "HS001")
        #expect(refusal(share, [l, editor.text, "owner"], as: editor) == "HS001", "an editor raising their own role")
        #expect(refusal(share, [l, viewer.text, "owner"], as: outsider) == "42501")
        // Only owners remove others; anyone leaves; the last owner neither leaves nor is removed.
        #expect(refusal(unshare, [l, outsider.text], as: editor) == "42501")
        #expect(refusal(unshare, [l, owner.text], as: owner) == "HS001")
        #expect(refusal(unshare, [l, outsider.text], as: owner) == nil)
        #expect(refusal(leave, [l], as: owner) == "HS002")
        #expect(refusal(leave, [l], as: viewer) == nil)
        #expect(refusal(leave, [l], as: viewer) == nil, "leaving twice changes nothing")
        // Ownership handed over: the first owner may leave, the new one is then the last.
        #expect(refusal(share, [l, editor.text, "owner"], as: owner) == nil)
        #expect(refusal(leave, [l], as: owner) == nil)
        #expect(refusal(leave, [l], as: editor) == "HS002")
        #expect(refusal(unshare, [l, editor.text], as: owner) == "42501", "a former owner manages nothing")
        // The table itself is read-only to users: membership changes go through the functions.
        #expect(
            refusal(
                "insert into public.task_lists_members (scope_id, user_id, role, server_seq) values ($1, $2, 'owner', 1)",
                [l, outsider.text], as: outsider) == "42501")
        #expect(
            refusal(
                "update public.task_lists_members set role = 'owner' where user_id = $1", [editor.text], as: editor)
                == "42501")
        let roles = try connection.execute(
            "select user_id, role, deleted_ms is null from public.task_lists_members where scope_id = $1 order by role", [l]
        ).rows.map { "\($0[0]!) \($0[1]!) \($0[2]!)" }
        #expect(
            Set(roles)
                == [
                    "\(owner.text) owner f", "\(editor.text) owner t", "\(viewer.text) viewer f", "\(outsider.text) viewer f",
                ])
    }

    @Test func aListsCreatorOwnsItAndMembersReadItsMemberships() throws {
        let second = UUID()
        try createList(second, name: "mine", as: outsider)
        #expect(
            try connection.execute(
                "select role from public.task_lists_members where scope_id = $1 and user_id = $2", [second.text, outsider.text]
            ).scalar == "owner")
        #expect(try count("select count(*) from public.task_lists_members where scope_id = $1", [list.text], as: viewer) == 3)
        #expect(try count("select count(*) from public.task_lists_members where scope_id = $1", [list.text], as: outsider) == 0)
        // Several new lists in one statement read back (RETURNING, as PostgREST asks).
        let returned = try connection.request(asUser: editor) {
            try $0.execute(
                "insert into public.task_lists (id, user_id, name) values ($1, $3, 'a'), ($2, $3, 'b') returning id",
                [UUID().text, UUID().text, editor.text]
            ).rows.count
        }
        #expect(returned == 2)
    }

    // MARK: Row-level security

    @Test func viewersReadEditorsWriteAndNobodyWritesIntoAListTheyDoNotEdit() throws {
        let task = try writeTask(title: "milk", list: list, as: editor)
        #expect(try count("select count(*) from public.tasks where id = $1", [task.text], as: viewer) == 1)
        #expect(try count("select count(*) from public.tasks where id = $1", [task.text], as: owner) == 1)
        #expect(try count("select count(*) from public.tasks where id = $1", [task.text], as: outsider) == 0)
        let insert = "insert into public.tasks (id, user_id, title, list_id) values ($1, $2, 'x', $3)"
        #expect(refusal(insert, [UUID().text, viewer.text, list.text], as: viewer) == "42501")
        #expect(refusal(insert, [UUID().text, outsider.text, list.text], as: outsider) == "42501")
        // A viewer's or outsider's update finds no row to change; an editor's does.
        let rename = "update public.tasks set title = 'renamed' where id = $1"
        #expect(try connection.request(asUser: viewer) { try $0.execute(rename, [task.text]).affectedRows } == 0)
        #expect(try connection.request(asUser: outsider) { try $0.execute(rename, [task.text]).affectedRows } == 0)
        #expect(try connection.request(asUser: owner) { try $0.execute(rename, [task.text]).affectedRows } == 1)
        #expect(
            try connection.execute("select user_id from public.tasks where id = $1", [task.text]).scalar == editor.text,
            "the author stays the row's user")
        // Nobody moves a row into a list they do not edit, nor their own row into one.
        let other = UUID()
        try createList(other, name: "the outsider's", as: outsider)
        let move = "update public.tasks set list_id = $2 where id = $1"
        #expect(refusal(move, [task.text, other.text], as: editor) == "42501")
        let own = try writeTask(title: "own", list: nil, as: viewer)
        #expect(refusal(move, [own.text, list.text], as: viewer) == "42501")
        #expect(try count("select count(*) from public.tasks where id = $1", [own.text], as: owner) == 0, "own rows are their owner's")
        // A photo is in its task's list whatever the device sends.
        let photo = UUID()
        try connection.request(asUser: editor) {
            try $0.execute(
                "insert into public.task_photos (id, user_id, task_id, photo, list_id) values ($1, $2, $3, 'p', null)",
                [photo.text, editor.text, task.text])
        }
        #expect(try connection.execute("select list_id from public.task_photos where id = $1", [photo.text]).scalar == list.text)
        #expect(try count("select count(*) from public.task_photos where id = $1", [photo.text], as: viewer) == 1)
    }

    @Test func deletingAListSoftDeletesItsRowsAndEndsItsMemberships() throws {
        let task = try writeTask(title: "milk", list: list, as: editor)
        let delete = "update public.task_lists set deleted_ms = 5 where id = $1"
        #expect(refusal(delete, [list.text], as: editor) == "42501", "only an owner deletes a list")
        #expect(refusal(delete, [list.text], as: owner) == nil)
        #expect(try connection.execute("select deleted_ms from public.tasks where id = $1", [task.text]).scalar == "5")
        #expect(
            try connection.execute(
                "select count(*) from public.task_lists_members where scope_id = $1 and deleted_ms is null", [list.text]
            ).scalar == "0")
        #expect(try count("select count(*) from public.tasks", as: editor) == 0)
        #expect(
            refusal(
                "insert into public.tasks (id, user_id, title, list_id) values ($1, $2, 'x', $3)",
                [UUID().text, editor.text, list.text], as: editor) == "42501")
    }

    // MARK: The pull

    @Test func aRemovedMemberReadsNothingMoreThroughTheTablesOrThePull() throws {
        try writeTask(title: "milk", list: list, as: owner)
        let before = try pull(#"{"tasks": 0, "@scopes": {}}"#, as: viewer)
        let scopes = try #require(before["scopes"] as? [String: Any])
        #expect(Array(scopes.keys) == [list.text])
        // A mark past every write so far (a pull's own mark may sit lower while another
        // transaction of the cluster runs): the viewer's next pull is idle until something of theirs changes.
        let mark = Int64(try connection.execute("select pg_current_xact_id()::text").scalar ?? "") ?? 0
        #expect((try pull(#"{"tasks": 0, "@scopes": {}}"#, since: mark, as: viewer)["scopes"]) == nil, "idle")

        try connection.request(asUser: owner) {
            try $0.execute("select public.task_lists_unshare($1, $2)", [list.text, viewer.text])
        }
        try writeTask(title: "after", list: list, as: owner)
        // The same claims as before the removal.
        #expect(try count("select count(*) from public.tasks", as: viewer) == 0)
        #expect(try count("select count(*) from public.task_lists", as: viewer) == 0)
        #expect(try count("select count(*) from public.task_lists_members", as: viewer) == 0)
        let after = try pull(#"{"tasks": 0, "@scopes": {"\#(list.text)": {"tasks": 0}}}"#, since: mark, as: viewer)
        #expect((after["scopes"] as? [String: Any])?.isEmpty == true, "the removal ends the idle answer and the list is gone")
        #expect(try rowCount(after, "tasks") == 0)
    }

    @Test func anOlderBuildKeepsItsOwnStreamAndNeverSeesSharedRows() throws {
        let alone = UUID()
        try createList(alone, name: "not shared")
        try writeTask(title: "own", list: nil, as: owner)
        try writeTask(title: "in the unshared list", list: alone, as: owner)
        try writeTask(title: "shared", list: list, as: owner)
        try writeTask(title: "the editor's", list: list, as: editor)
        let old = try pull(#"{"tasks": 0, "task_lists": 0}"#, as: owner)
        #expect(old["scopes"] == nil && Set(old.keys) == ["mark", "tables"])
        #expect(try titles(old, "tasks") == ["own", "in the unshared list"])
        #expect(try titles(old, "task_lists", key: "name") == ["not shared"])
        #expect(try page(old, "tasks")["exits"] == nil, "the old answer's shape")
        #expect(try titles(try pull(#"{"tasks": 0, "task_lists": 0}"#, as: editor), "tasks").isEmpty)
        // The new shape: own rows in "tables", every list in "scopes".
        let new = try pull(#"{"tasks": 0, "task_lists": 0, "@scopes": {}}"#, as: owner)
        #expect(try titles(new, "tasks") == ["own"])
        let scopes = try #require(new["scopes"] as? [String: [String: Any]])
        #expect(Set(scopes.keys) == [list.text, alone.text])
        #expect(scopes[list.text]?["role"] as? String == "owner")
    }

    @Test func joiningReadsTheListsOlderRowsFromZero() throws {
        let early = try writeTask(title: "early", list: list, as: owner)
        try writeTask(title: "own", list: nil, as: outsider)
        try writeTask(title: "later own", list: nil, as: outsider)
        let before = try pull(#"{"tasks": 0, "@scopes": {}}"#, as: outsider)
        let cursor = try #require(try page(before, "tasks")["rows"] as? [[String: Any]]).compactMap {
            ($0["server_seq"] as? NSNumber)?.intValue
        }.max()
        try share(list, outsider, "viewer")
        let after = try pull(#"{"tasks": \#(cursor ?? 0), "@scopes": {}}"#, as: outsider)
        let joined = try scopePage(after, list, "tasks")
        let ids = (joined["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids == [early.text], "a row older than every cursor the device holds")
        #expect(try scopeRows(after, list, "task_lists").count == 1)
        #expect(try scopeRows(after, list, "task_lists_members").count == 4)
    }

    @Test func aMovedRowLeavesAnExitInTheStreamItLeft() throws {
        let second = UUID()
        try createList(second, name: "second")
        try share(second, editor, "editor")
        let task = try writeTask(title: "milk", list: list, as: editor)
        let photo = UUID()
        try connection.request(asUser: editor) {
            try $0.execute(
                "insert into public.task_photos (id, user_id, task_id, photo) values ($1, $2, $3, 'p')",
                [photo.text, editor.text, task.text])
        }
        let seen = try pull(#"{"@scopes": {}}"#, as: viewer)
        let cursor = try scopeRows(seen, list, "tasks").compactMap { ($0["server_seq"] as? NSNumber)?.intValue }.max() ?? 0
        let photoCursor = try scopeRows(seen, list, "task_photos").compactMap { ($0["server_seq"] as? NSNumber)?.intValue }.max() ?? 0
        try connection.request(asUser: editor) {
            try $0.execute("update public.tasks set list_id = $2 where id = $1", [task.text, second.text])
        }
        #expect(try connection.execute("select list_id from public.task_photos where id = $1", [photo.text]).scalar == second.text)
        let after = try pull(
            #"{"@scopes": {"\#(list.text)": {"tasks": \#(cursor), "task_photos": \#(photoCursor)}}}"#, as: viewer)
        let exits = try scopePage(after, list, "tasks")["exits"] as? [[String: Any]] ?? []
        #expect(exits.compactMap { $0["id"] as? String } == [task.text])
        let photoExits = try scopePage(after, list, "task_photos")["exits"] as? [[String: Any]] ?? []
        #expect(photoExits.compactMap { $0["id"] as? String } == [photo.text])
        #expect(try scopeRows(after, list, "tasks").isEmpty)
        let editorView = try pull(#"{"@scopes": {}}"#, as: editor)
        #expect(try scopeRows(editorView, second, "tasks").compactMap { $0["id"] as? String } == [task.text])
        // Out of the list into own rows: the mover's, with an exit in the list it left.
        try connection.request(asUser: editor) {
            try $0.execute("update public.tasks set list_id = null where id = $1", [task.text])
        }
        #expect(try connection.execute("select user_id from public.tasks where id = $1", [task.text]).scalar == editor.text)
        #expect(
            try connection.execute(
                "select count(*) from public.sync_exits where scope = $1 and row_id = $2", [second.text, task.text]
            ).scalar == "1")
    }

    /// Two members write into one list; the one that took the lower server_seq commits last. The
    /// list's lock makes the second writer wait before it takes a server_seq, so a pull between
    /// the commits cannot move the list's cursor past a row still to commit.
    @Test func theListsLockOrdersTwoMembersWritesSoNoCursorPassesAnUncommittedRow() throws {
        let slow = try database.connect()
        try slow.execute("begin")
        try slow.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"role":"authenticated","sub":"\#(editor.text)"}"#])
        try slow.execute(
            "insert into public.tasks (id, user_id, title, list_id) values ($1, $2, 'slow', $3)",
            [UUID().text, editor.text, list.text])
        let fast = try database.connect()
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        let (owner, list) = (self.owner, self.list)
        DispatchQueue.global().async {
            do {
                try fast.request(asUser: owner) {
                    try $0.execute(
                        "insert into public.tasks (id, user_id, title, list_id) values ($1, $2, 'fast', $3)",
                        [UUID().text, owner.text, list.text])
                }
            } catch {
                failure.value = "\(error)"
            }
            done.signal()
        }
        try waitForAdvisoryLockWaiter()
        let between = try pull(#"{"@scopes": {}}"#, as: viewer)
        #expect(try scopeRows(between, list, "tasks").isEmpty, "nothing of the list committed: the fast writer waits")
        try slow.execute("commit")
        done.wait()
        #expect(failure.value == nil)
        let rows = try scopeRows(try pull(#"{"@scopes": {}}"#, as: viewer), list, "tasks")
        #expect(rows.compactMap { $0["title"] as? String } == ["slow", "fast"], "server_seq order is commit order")
    }

    /// A write into a list marks each member once (not the outsider); a member of ten lists is
    /// told "nothing new" by one index scan of the marks and no other table.
    @Test func marksFanOutAndAnIdleAnswerForAMemberOfTenListsIsOneIndexScan() throws {
        let marks = "select count(*) from public.sync_marks where user_id = $1 and xid = $2::xid8"
        let xid = try connection.request(asUser: editor) { connection -> String in
            try connection.execute(
                "insert into public.tasks (id, user_id, title, list_id) values ($1, $2, 'a', $3), ($4, $2, 'b', $3)",
                [UUID().text, editor.text, list.text, UUID().text])
            try connection.execute("update public.tasks set title = 'c' where list_id = $1", [list.text])
            return try connection.execute("select pg_current_xact_id()::text").scalar ?? ""
        }
        for member in [owner, editor, viewer] { #expect(try connection.execute(marks, [member.text, xid]).scalar == "1") }
        #expect(try connection.execute(marks, [outsider.text, xid]).scalar == "0")

        for index in 0..<9 {
            let other = UUID()
            try createList(other, name: "list \(index)")
            try share(other, viewer, "viewer")
            try writeTask(title: "t\(index)", list: other, as: owner)
        }
        #expect(try count("select count(*) from public.task_lists", as: viewer) == 10)
        let since = Int64(try connection.execute("select pg_current_xact_id()::text").scalar ?? "") ?? 0
        let session = try database.connect()
        let (answer, scans) = try session.request(asUser: viewer) { connection in
            let answer = try connection.execute(
                "select public.sync_pull($1::jsonb, $2::bigint)::text", [#"{"tasks": 0, "@scopes": {}}"#, String(since)]
            ).scalar
            let scans = try connection.execute(
                "select relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) from pg_stat_xact_user_tables where schemaname = 'public'"
            ).rows.reduce(into: [String: Int]()) { $0[$1[0]!] = Int($1[1]!)! }
            return (answer, scans)
        }
        #expect(answer == #"{"mark" : \#(since), "tables" : {}}"#)
        #expect(scans["sync_marks"] == 1)
        #expect(scans.filter { $0.key != "sync_marks" }.values.allSatisfy { $0 == 0 }, "\(scans)")
        let plan = try session.request(asUser: viewer) {
            try $0.execute(
                "explain (costs off) select 1 from public.sync_marks m where m.user_id = $1 and m.xid >= $2::text::xid8",
                [viewer.text, String(since)]
            ).rows.map { $0[0] ?? "" }
        }
        #expect(
            plan.contains { $0.contains("Index Scan on sync_marks_pkey") || $0.contains("Index Only Scan using sync_marks_pkey") },
            "\(plan)")
        #expect(!plan.contains { $0.contains("Seq Scan") }, "\(plan)")
    }

    @Test func supabasesAdvisorsFindNothingInTheSharingSQL() throws {
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.createRealtimeSchema()
        try Self.applySharingSQL(on: connection)
        let found = try SupabaseAdvisors.findings(on: connection)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    // MARK: Reading answers

    private func page(_ answer: [String: Any], _ table: String) throws -> [String: Any] {
        try #require((answer["tables"] as? [String: Any])?[table] as? [String: Any])
    }

    private func rowCount(_ answer: [String: Any], _ table: String) throws -> Int {
        ((answer["tables"] as? [String: Any])?[table] as? [String: Any])?["rows"].map { ($0 as? [Any])?.count ?? 0 } ?? 0
    }

    private func titles(_ answer: [String: Any], _ table: String, key: String = "title") throws -> [String] {
        (try page(answer, table)["rows"] as? [[String: Any]] ?? []).compactMap { $0[key] as? String }
    }

    private func scopePage(_ answer: [String: Any], _ scope: UUID, _ table: String) throws -> [String: Any] {
        let scopes = try #require(answer["scopes"] as? [String: Any])
        let tables = try #require((scopes[scope.text] as? [String: Any])?["tables"] as? [String: Any])
        return try #require(tables[table] as? [String: Any])
    }

    private func scopeRows(_ answer: [String: Any], _ scope: UUID, _ table: String) throws -> [[String: Any]] {
        guard let scopes = answer["scopes"] as? [String: Any], scopes[scope.text] != nil else { return [] }
        return try scopePage(answer, scope, table)["rows"] as? [[String: Any]] ?? []
    }

    /// Waits until a backend of this database waits for an advisory lock (the deadline only ends
    /// a hung test).
    private func waitForAdvisoryLockWaiter() throws {
        let hangGuard = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < hangGuard {
            let waiting = try connection.execute(
                "select count(*) from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())"
            ).scalar
            if waiting != "0" { return }
            usleep(10_000)
        }
        Issue.record("the second writer never waited for the list's lock")
    }
}
