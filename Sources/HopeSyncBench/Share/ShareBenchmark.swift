import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel

/// `bench share`: what sharing by scope (decision 0048) costs, each part beside its unshared
/// baseline in the same run, on a throwaway PostgreSQL 15 with the project's generated
/// schema.sql (task_lists are scopes, tasks are in a list's stream by list_id) and Supabase's
/// realtime schema: a member joining a 10,000-row list beside an initial sync of 10,000 own rows
/// (``ShareJoin``), an idle member of 10 lists beside an idle own-only device (``ShareIdle``),
/// and a pushed row, own and shared, above the floor `bench merge` measures (``ShareWrites``).
/// `BENCH_SHARE_PARTS=join,idle,writes` runs only the parts named.
enum ShareBenchmark {
    static func run() async throws -> [Figure] {
        let cluster = try BenchCluster.start()
        guard let directory = Scratch.directory("hope-sync-share", inMemory: false) else {
            throw BenchmarkError("no scratch directory for the device files")
        }
        defer {
            cluster.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        let database = try cluster.createDatabase("bench", generatedSchema: true, realtime: true)
        let client = try ClientConnection(url: database.url)
        print(
            "Sharing: PostgreSQL 15 on this machine over TCP 127.0.0.1, the project's generated schema.sql; device files in \(directory.path)"
        )
        let parts = ProcessInfo.processInfo.environment["BENCH_SHARE_PARTS"].map { Set($0.split(separator: ",").map(String.init)) }
        var figures: [Figure] = []
        if parts?.contains("join") ?? true { figures += try await ShareJoin.run(database, client: client, directory: directory) }
        if parts?.contains("idle") ?? true { figures += try await ShareIdle.run(database, client: client, directory: directory) }
        if parts?.contains("writes") ?? true { figures += try ShareWrites.run(database, client: client) }
        return figures
    }

    /// The n-th user of the run.
    static func user(_ index: Int) -> UUID {
        UUID(uuidString: String(format: "5a4e0000-0000-4000-8000-%012d", index))!
    }

    /// A task list of `owner`'s, made by the server (its creator becomes its owner), with
    /// `tasks` tasks in it; or, with no list, `tasks` of the owner's own. Through the real
    /// triggers, as the owner's pushes would have left them.
    static func load(tasks: Int, of owner: UUID, in list: UUID?, _ database: BenchDatabase) throws {
        let (ownerText, listText) = (quotedUUID(owner), list.map(quotedUUID) ?? "null")
        var script = ""
        if let list {
            script += "insert into public.task_lists (id, user_id, name) values (\(quotedUUID(list)), \(ownerText), 'Shared list');\n"
        }
        script += """
            insert into public.tasks (id, user_id, title, notes, due_at, list_id)
              select gen_random_uuid(), \(ownerText), 'Task ' || n, case when n % 3 = 0 then 'note ' || n end,
                timestamptz '2026-12-01 09:00+00' + n * interval '1 hour', \(listText)
              from generate_series(1, \(tasks)) n;
            analyze public.tasks;
            """
        try database.admin.execute(script: script)
    }

    /// `owner` makes `member` a member of `list`, as the app's share request does (PostgREST's
    /// upsert of the membership table, under its policies and rules).
    static func share(_ list: UUID, with member: UUID, role: String = "editor", by owner: UUID, _ client: ClientConnection) throws {
        _ = try client.query(
            """
            insert into public.task_lists_members (scope_id, user_id, role) values ($1, $2, $3)
            on conflict (scope_id, user_id) do update set role = excluded.role, deleted_ms = null
            """, [list.uuidString.lowercased(), member.uuidString.lowercased(), role], as: owner)
    }

    private static func quotedUUID(_ id: UUID) -> String { "'\(id.uuidString.lowercased())'::uuid" }
}

/// One device of a user: a store in its own file and an engine on `transport`.
struct ShareDevice {
    let store: SyncStore
    let engine: SyncEngine
    let path: String

    init(_ name: String, of user: UUID, transport: any SyncTransport, directory: URL) throws {
        path = Scratch.databasePath("bench-share-\(name)", in: directory)
        store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: user, deviceID: name)
        let credentials = Credentials(userID: user, accessToken: "unused")
        engine = SyncEngine(store: store, transport: transport) { credentials }
    }

    func taskCount() async throws -> Int { try await store.read { try $0.fetchCount(TaskItem.self) } }

    func close() {
        store.close()
        Scratch.removeDatabase(path)
    }
}
