import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// Tests/Fixtures/RustClient's task lists client (src/lists), written from docs/PROTOCOL.md
/// alone, on the project's own generated SQL and tables.rs: every request it prints runs on a
/// throwaway PostgreSQL as PostgREST would run it, as the user the client signs in. In the habit
/// app's serialized suite, with the other runs of the Rust clients.
extension HabitAppTests {
    /// Ana makes a list with tasks (SQL as Ana); her Rust client pulls it, shares it with Ben
    /// as an editor and, once another writer of the list is out of the way, retries the write.
    /// Ben's Rust client pulls the list, its tasks and members, never Ana's own task; sees
    /// Ana's edit, and a task she moves out of the list leaves; edits a task as an editor,
    /// which Ana reads; as a viewer its edit is refused; removed, it deletes the list's rows at
    /// its next pull and puts the edit it had not pushed on its rejected list.
    @Test func rustClientSyncsASharedListByTheProtocol() async throws {
        try #require(try await Cargo.build().status == 0)
        let database = try PostgresCluster.createDatabase()
        let server = try database.connect()
        try server.execute(
            script: try String(contentsOf: SwiftPM.root.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8))
        let postgREST = PostgRESTOverSQL(connection: server)
        let (ana, ben, cleo) = (UUID(), UUID(), UUID())
        let (a, b) = (ana.uuidString.lowercased(), ben.uuidString.lowercased())
        let list = UUID().uuidString.lowercased()
        let tasks = (0..<3).map { _ in UUID().uuidString.lowercased() }
        let anasOwnTask = UUID().uuidString.lowercased()
        try server.request(asUser: ana) { connection in
            try connection.execute("insert into public.task_lists (id, user_id, name) values ($1, $2, 'Groceries')", [list, a])
            for (id, title) in zip(tasks, ["Milk", "Bread", "Eggs"]) {
                try connection.execute(
                    "insert into public.tasks (id, user_id, title, list_id) values ($1, $2, $3, $4)", [id, a, title, list])
            }
            try connection.execute("insert into public.tasks (id, user_id, title) values ($1, $2, 'Call mum')", [anasOwnTask, a])
        }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rust-lists-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (anasFile, bensFile) = (folder.appendingPathComponent("ana.sqlite").path, folder.appendingPathComponent("ben.sqlite").path)
        var answers = 0
        /// Runs the lists client; it must succeed.
        func client(_ arguments: String...) async throws -> String {
            let run = try await Cargo.listsClient(arguments)
            #expect(run.status == 0, "\(arguments): \(run.output)")
            return run.output
        }
        /// Sends the request `output` ends with as `user`, and hands the answer to `mode`.
        func answer(_ output: String, as user: UUID, with mode: String, _ file: String, _ extra: String...) async throws -> String {
            let reply = try postgREST.answer(output, as: user)
            answers += 1
            let path = folder.appendingPathComponent("answer-\(answers).json").path
            try Data(reply.body.utf8).write(to: URL(fileURLWithPath: path))
            let status = mode == "pull-answer" ? [] : [String(reply.status)]
            return try await Cargo.listsClient([mode, file] + status + [path] + extra).output
        }
        /// Pulls in pages of two until no page is full; returns each answer's output.
        func pull(_ file: String, as user: UUID) async throws -> [String] {
            var outputs = [try await client("pull-request", file, "2")]
            for _ in 0..<20 {
                outputs.append(try await answer(outputs.last ?? "", as: user, with: "pull-answer", file, "2"))
                if !(outputs.last ?? "").contains("more: a page was full\n") { return outputs }
            }
            Issue.record("the pulls never ended: \(outputs.last ?? "")")
            return outputs
        }
        func lines(_ output: String, _ prefix: String) -> [String] {
            output.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }.sorted()
        }
        func title(of task: String) throws -> String? {
            try server.request(asUser: ana) { try $0.execute("select title from public.tasks where id = $1", [task]).scalar }
        }

        // Ana's client: the list is a scope she owns, read from 0 with a page of tasks full.
        let anasPull = try await pull(anasFile, as: ana)
        #expect(anasPull[0].contains("cursors=%7B%22%40scopes%22%3A%7B%7D%2C"), "the sharing shape, no scope known yet: \(anasPull[0])")
        #expect(anasPull.count == 3 && anasPull[1].contains("more: a page was full\n"), "\(anasPull)")
        let anasState = try #require(anasPull.last)
        #expect(anasState.contains("scope \(list): owner of task_lists\n") && anasState.contains("member: \(list) \(a) owner current\n"))
        #expect(lines(anasState, "task: ").count == 4, "her list's three tasks and her own: \(anasState)")
        #expect(!anasState.contains("mark: none"), "a whole answer's mark is kept: \(anasState)")

        // She shares it with Ben while another request holds the list's lock and waits for it:
        // 55P03, retried after the other commits.
        let other = try database.connect()
        try other.execute("begin")
        try other.execute(
            "select pg_advisory_xact_lock(1752134757, hashtext($1)), pg_advisory_xact_lock(1752134758, hashtext($1))", [list])
        let share = try await client("share", anasFile, list, b, "editor")
        #expect(share.contains("next: POST /rest/v1/task_lists_members?on_conflict=scope_id,user_id&select="), "\(share)")
        let busy = try await answer(share, as: ana, with: "membership-answer", anasFile)
        #expect(busy.contains("retry: 55P03, after a backoff (try 2 of 4)\n"), "\(busy)")
        try other.execute("commit")
        #expect(try await answer(busy, as: ana, with: "membership-answer", anasFile).contains("shared: \(list) with \(b) as editor\n"))
        let again = try await client("share", anasFile, list, b, "editor")
        #expect(try await answer(again, as: ana, with: "membership-answer", anasFile).contains("repeat: nothing changed\n"))

        // Ben's client joins: the list, its three tasks and both members; not Ana's own task.
        let bensPull = try await pull(bensFile, as: ben)
        var bens = try #require(bensPull.last)
        #expect(bens.contains("scope \(list): editor of task_lists\n"), "\(bens)")
        #expect(lines(bens, "list: ") == ["list: \(list) name=Groceries dirty=0"])
        #expect(
            lines(bens, "task: ") == zip(tasks, ["Milk", "Bread", "Eggs"]).map { "task: \($0) title=\($1) list=\(list) dirty=0" }.sorted())
        #expect(lines(bens, "member: ") == ["member: \(list) \(a) owner current", "member: \(list) \(b) editor current"].sorted())
        #expect(bens.contains("%22%40scopes%22%3A%7B%22\(list)%22%3A%7B"), "the next request names the list's cursors: \(bens)")
        // An editor adds nobody.
        let bensShare = try await client("share", bensFile, list, cleo.uuidString.lowercased(), "viewer")
        #expect(try await answer(bensShare, as: ben, with: "membership-answer", bensFile).contains("refused: 42501"))

        // Ana renames a task and moves another out of the list (into her own rows).
        try server.request(asUser: ana) { connection in
            try connection.execute("update public.tasks set title = 'Oat milk' where id = $1", [tasks[0]])
            try connection.execute("update public.tasks set list_id = null where id = $1", [tasks[2]])
        }
        let afterMove = try await pull(bensFile, as: ben)
        bens = try #require(afterMove.last)
        #expect(afterMove.filter { $0.contains("exits removed: 1\n") }.count == 1, "the moved task's exit: \(afterMove)")
        #expect(
            lines(bens, "task: ")
                == ["task: \(tasks[0]) title=Oat milk list=\(list) dirty=0", "task: \(tasks[1]) title=Bread list=\(list) dirty=0"].sorted())

        // Ben edits a task as an editor: a guarded PATCH; Ana reads it, and so does her client.
        // An edit made while the first is in flight stays queued, on the version its answer gave.
        let edited = try await client("edit", bensFile, tasks[1], "Rye bread")
        #expect(edited.contains("task: \(tasks[1]) title=Rye bread list=\(list) dirty=1\n"), "\(edited)")
        #expect(edited.contains("next: PATCH /rest/v1/tasks?id=eq.\(tasks[1])&updated_at=eq."), "\(edited)")
        #expect(try await client("edit", bensFile, tasks[1], "Sourdough").contains("edited: \(tasks[1])\n"))
        let pushed = try await answer(edited, as: ben, with: "push-answer", bensFile)
        #expect(pushed.contains("pushed: tasks \(tasks[1])\n"), "\(pushed)")
        #expect(pushed.contains("task: \(tasks[1]) title=Sourdough list=\(list) dirty=1\n"), "\(pushed)")
        #expect(try title(of: tasks[1]) == "Rye bread")
        let second = try await answer(pushed, as: ben, with: "push-answer", bensFile)
        #expect(second.contains("pushed: tasks \(tasks[1])\n") && second.contains("push: nothing queued\n"), "\(second)")
        #expect(second.contains("task: \(tasks[1]) title=Sourdough list=\(list) dirty=0\n"), "\(second)")
        #expect(try title(of: tasks[1]) == "Sourdough")
        let anasView = try #require(try await pull(anasFile, as: ana).last)
        #expect(anasView.contains("task: \(tasks[1]) title=Sourdough list=\(list) dirty=0\n"), "\(anasView)")
        #expect(anasView.contains("task: \(tasks[2]) title=Eggs list=none dirty=0\n"), "the moved task is her own: \(anasView)")

        // As a viewer, Ben's client refuses an edit at the save; an editor again, it queues one.
        for (role, expected) in [("viewer", "refused: a viewer of \(list) cannot edit its rows"), ("editor", "edited: \(tasks[0])")] {
            let change = try await client("share", anasFile, list, b, role)
            #expect(try await answer(change, as: ana, with: "membership-answer", anasFile).contains("as \(role)\n"))
            #expect(try await pull(bensFile, as: ben).last?.contains("scope \(list): \(role) of task_lists\n") == true)
            #expect(try await client("edit", bensFile, tasks[0], "Soy milk").contains(expected + "\n"))
        }

        // Ana removes Ben (a repeat is a repeat); at his next pull the list's rows are gone,
        // and the edit he never pushed is on his rejected list.
        let removal = try await client("remove", anasFile, list, b)
        #expect(removal.contains("next: PATCH /rest/v1/task_lists_members?scope_id=eq.\(list)&user_id=eq.\(b)&select="), "\(removal)")
        #expect(
            try await answer(removal, as: ana, with: "membership-answer", anasFile).contains(
                "ended: \(b) is no longer a member of \(list)\n"))
        let removedAgain = try await client("remove", anasFile, list, b)
        #expect(
            try await answer(removedAgain, as: ana, with: "membership-answer", anasFile).contains(
                "repeat: the membership had ended already\n"))
        bens = try #require(try await pull(bensFile, as: ben).last)
        #expect(bens.contains("ended: \(list)\n"), "\(bens)")
        #expect(
            lines(bens, "scope ").isEmpty && lines(bens, "list: ").isEmpty && lines(bens, "task: ").isEmpty
                && lines(bens, "member: ").isEmpty)
        #expect(!bens.contains("cursor \(list)/"), "the list's cursors go with it: \(bens)")
        #expect(bens.contains("rejected: tasks \(tasks[0]) {\"title\":\"Soy milk\"}: Your access to this task_lists row ended"), "\(bens)")
        #expect(bens.contains("cursors=%7B%22%40scopes%22%3A%7B%7D%2C"), "no scope named any more: \(bens)")
        #expect(try await client("push-request", bensFile).contains("push: nothing queued\n"))
        #expect(try title(of: tasks[0]) == "Oat milk", "the rejected edit never reached the server")
    }
}
