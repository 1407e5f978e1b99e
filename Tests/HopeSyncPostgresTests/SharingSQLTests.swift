import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import HopeSyncTestSupport
import Testing

/// Sharing by scope (decision 0048) on PostgreSQL 15: the server SQL the generator renders for
/// Tests/Fixtures/Sharing/schema.yaml (task_lists a scope, tasks in a list's stream by list_id,
/// task_photos following their task). An owner, an editor and a viewer of one list, and an
/// outsider; membership written through task_lists_members as PostgREST writes a table.
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
        // A cluster of its own: its idle-answer test reads the cluster's oldest transaction, and its
        // lock test holds one open, which the other `alone` suites would see.
        database = try PostgresCluster.createDatabase(apart: true)
        connection = try database.connect()
        try Self.applySharingSQL(on: connection)
        // The ordering test holds a writer open while another waits: no bound on the wait here.
        try connection.execute("alter database \(database.name) set hope_sync.owner_lock_timeout = '0'")
        try createList(list, name: "groceries")
        try share(list, editor, "editor")
        try share(list, viewer, "viewer")
    }

    /// The example schema, shared.
    static let sharedSchema: Schema = {
        let url = packageRoot.appendingPathComponent("Tests/Fixtures/Sharing/schema.yaml")
        do {
            return try SchemaParser.parse(String(contentsOf: url, encoding: .utf8)).schema
        } catch {
            fatalError("Tests/Fixtures/Sharing/schema.yaml does not parse: \(error)")
        }
    }()

    static func applySharingSQL(on connection: Connection) throws {
        try connection.execute(script: try TestSchema.renderer.schemaSQL(sharedSchema, columnOrder: ServerColumnOrder()))
    }

    static let shareSQL = """
        insert into public.task_lists_members (scope_id, user_id, role) values ($1, $2, $3)
        on conflict (scope_id, user_id) do update set role = excluded.role, deleted_ms = null
        """
    static let removeSQL = "update public.task_lists_members set deleted_ms = 1 where scope_id = $1 and user_id = $2"

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
            try $0.execute(Self.shareSQL, [scope.text, member.text, role])
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

    /// The rows `sql` changed as `user`.
    private func affected(_ sql: String, _ parameters: [String?] = [], as user: UUID) throws -> Int {
        try connection.request(asUser: user) { try $0.execute(sql, parameters).affectedRows }
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

    @Test func membershipWritesFollowTheRulesAndEachRefusalHasItsSQLSTATE() throws {
        let share = Self.shareSQL
        let remove = Self.removeSQL
        let l = list.text
        // Only owners share; nobody adds themselves or changes their own role.
        #expect(refusal(share, [l, outsider.text, "viewer"], as: editor) == "42501")
        #expect(refusal(share, [l, outsider.text, "viewer"], as: viewer) == "42501")
        #expect(refusal(share, [l, UUID().text, "viewer"], as: outsider) == "42501")
        #expect(refusal(share, [l, outsider.text, "viewer"], as: outsider) == "HS001", "nobody adds themselves")
        #expect(refusal(share, [l, outsider.text, "viewer"], as: nil) == "42501", "anon may not write it")
        #expect(refusal(share, [l, outsider.text, "viewer"], as: owner) == nil)
        #expect(refusal(share, [l, outsider.text, "viewer"], as: owner) == nil, "a repeat changes nothing")
        #expect(refusal(share, [l, editor.text, "admin"], as: owner) == "22023")
        #expect(refusal(share, [l, owner.text, "editor"], as: owner) == "HS001")
        #expect(refusal(share, [l, editor.text, "owner"], as: editor) == "HS001", "an editor raising their own role")
        #expect(refusal(share, [l, viewer.text, "owner"], as: outsider) == "42501")
        #expect(
            refusal("update public.task_lists_members set role = 'owner' where user_id = $1", [editor.text], as: editor) == "HS001")
        // Only owners remove others (anyone else changes no row); anyone leaves; the last owner
        // neither leaves nor is made something else.
        #expect(try affected(remove, [l, outsider.text], as: editor) == 0)
        #expect(try affected(remove, [l, outsider.text], as: owner) == 1)
        #expect(refusal(remove, [l, owner.text], as: owner) == "HS002", "the last owner leaving")
        #expect(try affected(remove, [l, viewer.text], as: viewer) == 1)
        #expect(try affected(remove, [l, viewer.text], as: viewer) == 0, "leaving twice changes nothing")
        // Ownership handed over: the first owner may leave, the new one is then the last.
        #expect(refusal(share, [l, editor.text, "owner"], as: owner) == nil)
        #expect(try affected(remove, [l, owner.text], as: owner) == 1)
        #expect(refusal(remove, [l, editor.text], as: editor) == "HS002")
        #expect(try affected(remove, [l, editor.text], as: owner) == 0, "a former owner manages nothing")
        #expect(refusal(share, [l, owner.text, "viewer"], as: owner) == "HS001", "nor rejoins by themselves")
        // What only hope-sync writes stays closed.
        #expect(
            refusal(
                "insert into public.sync_scope_access (user_id, scope_id, scope_table, role) values ($1, $2, 'task_lists', 'owner')",
                [outsider.text, l], as: outsider) == "42501")
        #expect(refusal("delete from public.task_lists_members where scope_id = $1", [l], as: editor) == "42501")
        let roles = try connection.execute(
            "select user_id, role, deleted_ms is null from public.task_lists_members where scope_id = $1 order by role", [l]
        ).rows.map { "\($0[0]!) \($0[1]!) \($0[2]!)" }
        #expect(
            Set(roles)
                == [
                    "\(owner.text) owner f", "\(editor.text) owner t", "\(viewer.text) viewer f", "\(outsider.text) viewer f",
                ])
        let access = try connection.execute("select user_id, role from public.sync_scope_access where scope_id = $1", [l]).rows
        #expect(access.map { "\($0[0]!) \($0[1]!)" } == ["\(editor.text) owner"], "the access table follows the memberships")
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

        #expect(try affected(Self.removeSQL, [list.text, viewer.text], as: owner) == 1)
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

    /// The policies' member check is read once a statement (an InitPlan), over one index range
    /// of the caller's access rows.
    @Test func theMemberCheckIsAnInitPlanOverOneIndexRange() throws {
        try writeTask(title: "milk", list: list, as: editor)
        let plan = try connection.request(asUser: viewer) { connection -> [String] in
            // The tables are tiny: without this the planner reads them whole, as it should.
            try connection.execute("set local enable_seqscan = off")
            return try connection.execute("explain (costs off) select * from public.tasks where title = 'milk'").rows.map {
                $0[0] ?? ""
            }
        }
        let text = plan.joined(separator: "\n")
        #expect(plan.filter { $0.contains(" on sync_scope_access a") }.count == 1, "the access table read once\n\(text)")
        #expect(plan.contains { $0.contains("sync_scope_access_pkey") }, "by its index\n\(text)")
        #expect(plan.contains { $0.contains("Index Cond: (user_id = $") }, "a range of the caller's rows\n\(text)")
        #expect(plan.contains { $0.contains("InitPlan") } && plan.contains { $0.contains("list_id = ANY ($") }, "\(text)")
        #expect(!plan.contains { $0.contains("SubPlan") }, "nothing evaluated row by row\n\(text)")
    }

    /// A shipped project starts sharing (SchemaChange.shareTable), by the migration or by
    /// schema.sql pasted over it: every row stays, each list's creator owns it, and the rows go
    /// on syncing (own rows in the own stream, the lists as scopes).
    @Test(arguments: [true, false])
    func sharingShippedTablesKeepsEveryRowAndMakesEachListsCreatorItsOwner(byMigration: Bool) throws {
        let connection = try PostgresCluster.createDatabase().connect()
        try connection.execute(
            script: try String(contentsOf: Self.packageRoot.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8))
        let (lists, task, photo) = ([UUID(), UUID()], UUID(), UUID())
        for (index, list) in lists.enumerated() {
            try connection.request(asUser: owner) {
                try $0.execute(
                    "insert into public.task_lists (id, user_id, name) values ($1, $2, $3)", [list.text, owner.text, "l\(index)"])
            }
        }
        try connection.request(asUser: editor) {
            try $0.execute("insert into public.tasks (id, user_id, title) values ($1, $2, 'before')", [task.text, editor.text])
            try $0.execute(
                "insert into public.task_photos (id, user_id, task_id, photo) values ($1, $2, $3, 'p')",
                [photo.text, editor.text, task.text])
        }
        let counts =
            "select (select count(*) from public.task_lists) || ' ' || (select count(*) from public.tasks) || ' ' || (select count(*) from public.task_photos)"
        #expect(try connection.execute(counts).scalar == "2 1 1")

        let schema = Self.sharedSchema
        if byMigration {
            let tasks = try #require(schema.table(named: "tasks"))
            let photos = try #require(schema.table(named: "task_photos"))
            let listColumn = { (table: Table) in try #require(table.syncedColumns.first { $0.name == "list_id" }) }
            let migration = Migration(
                number: 99, name: "share",
                changes: [
                    .shareTable(tasks), .addColumn(try listColumn(tasks), to: tasks),
                    .shareTable(try #require(schema.table(named: "task_lists"))),
                    .shareTable(photos), .addColumn(try listColumn(photos), to: photos),
                ],
                schema: schema)
            try connection.execute(script: try TestSchema.renderer.migrationSQL(migration))
        } else {
            try connection.execute(script: try TestSchema.renderer.schemaSQL(schema, columnOrder: ServerColumnOrder()))
        }
        // Pasting schema.sql again changes nothing.
        try connection.execute(script: try TestSchema.renderer.schemaSQL(schema, columnOrder: ServerColumnOrder()))

        #expect(try connection.execute(counts).scalar == "2 1 1")
        let members = try connection.execute(
            "select scope_id, user_id, role from public.task_lists_members where deleted_ms is null order by scope_id"
        ).rows.map { "\($0[0]!) \($0[1]!) \($0[2]!)" }
        #expect(members == lists.map { "\($0.text) \(owner.text) owner" }.sorted())
        #expect(
            try connection.execute("select count(*) from public.sync_scope_access where user_id = $1 and role = 'owner'", [owner.text])
                .scalar
                == "2")
        let lists0 = try connection.request(asUser: owner) { try $0.execute("select count(*) from public.task_lists").scalar }
        #expect(lists0 == "2")
        let own = try connection.request(asUser: editor) {
            try $0.execute("select count(*) from public.tasks where id = $1 and list_id is null", [task.text]).scalar
        }
        #expect(own == "1", "an unshared row stays its owner's own")
        // The shared rules hold at once: the owner shares, the editor writes into the list.
        try connection.request(asUser: owner) { try $0.execute(Self.shareSQL, [lists[0].text, editor.text, "editor"]) }
        try connection.request(asUser: editor) {
            try $0.execute("update public.tasks set list_id = $2 where id = $1", [task.text, lists[0].text])
        }
        #expect(try connection.execute("select list_id from public.task_photos where id = $1", [photo.text]).scalar == lists[0].text)
        let found = try SupabaseAdvisors.findings(on: connection)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// The scope lock's wait, which the write triggers call as the writer, is open to a scope's
    /// members only: nobody queues in front of another team's writes.
    @Test func onlyMembersWaitForAListsLock() throws {
        let wait = "select public.sync_wait_for_scope($1)"
        #expect(refusal(wait, [list.text], as: outsider) == "42501")
        #expect(refusal(wait, [list.text], as: nil) == "42501", "anon may not call it")
        #expect(refusal(wait, [list.text], as: viewer) == nil)
    }

    /// A removed member added back reads the list again, from a new membership stamp.
    @Test func aRemovedMemberAddedBackReadsTheListAgain() throws {
        try writeTask(title: "milk", list: list, as: owner)
        #expect(try affected(Self.removeSQL, [list.text, viewer.text], as: owner) == 1)
        #expect(try count("select count(*) from public.tasks", as: viewer) == 0)
        let before = try connection.execute(
            "select server_seq from public.task_lists_members where scope_id = $1 and user_id = $2", [list.text, viewer.text]
        ).scalar
        try share(list, viewer, "viewer")
        #expect(try count("select count(*) from public.tasks", as: viewer) == 1)
        let after = try connection.execute(
            "select server_seq, added_by, deleted_ms is null from public.task_lists_members where scope_id = $1 and user_id = $2",
            [list.text, viewer.text]
        ).rows.first
        #expect(after?[0] != before && after?[1] == owner.text && after?[2] == "t")
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
