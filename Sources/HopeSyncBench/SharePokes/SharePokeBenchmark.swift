import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresCluster

/// `bench share-pokes`: the two ways a write to a shared list could poke its members (decision
/// 0048, "Amendment: pokes to members"), side by side on PostgreSQL 15 with Realtime's schema
/// (realtime.send inserts into the partitioned realtime.messages): (b) fan-out, the generated
/// SQL, one poke on each member's own topic; (a) a topic per scope, one poke on the list's topic
/// (the written_streams function replaced for the measure), beside no poke at all. Then what a
/// device holds as a member of 10 lists: channels, and the joins' authorisation as Realtime runs
/// it. Last, `share.revoke_gone_p95_ms`: an owner removes a member, until the list is gone from
/// the member's device, with pokes (the test Realtime server) and polling only. Settings:
/// SHARE_POKES_WRITES (writes per design and member count, default 300), SHARE_POKES_TRIALS (20).
enum SharePokeBenchmark {
    static func run() async throws -> [Figure] {
        let writes = PokeBenchmark.setting("SHARE_POKES_WRITES", 300)
        let trials = PokeBenchmark.setting("SHARE_POKES_TRIALS", 20)
        let cluster = try BenchCluster.start()
        defer { cluster.stop() }
        let database = try cluster.createDatabase("share_pokes", generatedSchema: false)
        try database.admin.execute(script: SupabasePrelude.realtime)
        try database.admin.execute(
            script: String(contentsOf: Repository.root.appendingPathComponent("Generated/supabase/schema.sql"), encoding: .utf8))

        let costs = try SharedWriteCost(database: database).measure(members: [1, 10, 50], writes: writes)
        let joins = try JoinCost(database: database).measure(scopes: 10, reconnects: 200)
        let revoke = try await RevokeLatency(database: database).measure(trials: trials)

        var figures: [Figure] = []
        for cost in costs where cost.members == 50 || cost.members == 1 {
            figures.append(Figure("share.poke_fanout_write_ms_\(cost.members)_members", cost.fanOut, aim: nil, digits: 3))
            figures.append(Figure("share.poke_scope_topic_write_ms_\(cost.members)_members", cost.scopeTopic, aim: nil, digits: 3))
        }
        figures += [
            Figure("share.poke_reconnect_joins_ms_10_scopes_scope_topics", joins.scopeTopics, aim: nil, digits: 3),
            Figure("share.poke_reconnect_joins_ms_10_scopes_fanout", joins.ownTopic, aim: nil, digits: 3),
            Figure("share.revoke_gone_p95_ms", revoke.poked.p95, aim: 1_000, digits: 0),
            Figure("share.revoke_gone_polling_p95_ms", revoke.polled.p95, aim: nil, digits: 0),
        ]
        return figures
    }
}

/// A one-row task write to a list of `members`, as a member's request, timed under each design.
struct SharedWriteCost {
    struct Row {
        let members: Int
        let floor: Double
        let fanOut: Double
        let scopeTopic: Double
        let pokesFanOut: Double
        let pokesScopeTopic: Double
    }

    let database: BenchDatabase

    /// (a): marks as generated, then one poke per scope written on `sync:scope:<id>` and the own
    /// rows' owners as generated.
    static let scopeTopicStreams = """
        create or replace function public.tasks_written_streams() returns trigger language plpgsql security definer
        set search_path = '' as $$
        declare
          scope uuid;
          high bigint := (select max(w.server_seq) from written w);
        begin
          perform public.sync_mark_users(array(
            select w.user_id from written w where w.list_id is null
            union
            select a.user_id from public.sync_scope_access a where a.scope_id in (select w.list_id from written w)));
          perform public.sync_poke_users(array(select w.user_id from written w where w.list_id is null), 'tasks', high);
          for scope in select distinct w.list_id from written w where w.list_id is not null loop
            perform realtime.send(pg_catalog.jsonb_build_object('table', 'tasks', 'server_seq', high), 'poke',
              'sync:scope:' || scope::text, true);
          end loop;
          return null;
        end
        $$;
        """
    /// No poke at all: marks only.
    static let noPokeStreams = """
        create or replace function public.tasks_written_streams() returns trigger language plpgsql security definer
        set search_path = '' as $$
        begin
          perform public.sync_mark_users(array(
            select w.user_id from written w where w.list_id is null
            union
            select a.user_id from public.sync_scope_access a where a.scope_id in (select w.list_id from written w)));
          return null;
        end
        $$;
        """

    func measure(members counts: [Int], writes: Int) throws -> [Row] {
        let generated = try database.admin.execute("select pg_get_functiondef('public.tasks_written_streams'::regproc)").scalar ?? ""
        let designs = [("none", Self.noPokeStreams), ("fan-out", generated), ("scope topic", Self.scopeTopicStreams)]
        let client = try ClientConnection(url: database.url)
        var rows: [Row] = []
        print("one-row task write to a list, as a member's request (ms per write, median of 3 rounds of \(writes)):")
        print(
            tableRow(
                ["members", "no poke", "(b) fan-out", "(a) scope topic", "b/a", "pokes b", "pokes a"], widths: [9, 10, 13, 17, 7, 9, 9]))
        for count in counts {
            let owner = UUID()
            let list = UUID()
            let users = [owner] + (1..<count).map { _ in UUID() }
            _ = try client.query(
                "insert into public.task_lists (id, user_id, name) values ($1, $2, 'bench')", [list.text, owner.text], as: owner)
            for member in users.dropFirst() {
                _ = try client.query(
                    "insert into public.task_lists_members (scope_id, user_id, role) values ($1, $2, 'editor')", [list.text, member.text],
                    as: owner)
            }
            let writer = users.last ?? owner
            var times: [String: [Double]] = [:]
            var pokes: [String: Double] = [:]
            for _ in 0..<3 {
                for (name, definition) in designs {
                    try database.admin.execute(script: definition)
                    let before = try database.integer("select count(*) from realtime.messages")
                    let seconds = try Measure.seconds {
                        for _ in 0..<writes {
                            _ = try client.query(
                                "insert into public.tasks (id, user_id, title, list_id) values (gen_random_uuid(), $1, 'bench', $2)",
                                [writer.text, list.text], as: writer)
                        }
                    }
                    times[name, default: []].append(seconds * 1e3 / Double(writes))
                    pokes[name] = Double(try database.integer("select count(*) from realtime.messages") - before) / Double(writes)
                }
            }
            try database.admin.execute(script: generated)
            let row = Row(
                members: count, floor: Measure.median(times["none"] ?? []), fanOut: Measure.median(times["fan-out"] ?? []),
                scopeTopic: Measure.median(times["scope topic"] ?? []), pokesFanOut: pokes["fan-out"] ?? 0,
                pokesScopeTopic: pokes["scope topic"] ?? 0)
            rows.append(row)
            print(
                tableRow(
                    [
                        "\(count)", Measure.format(row.floor, digits: 3), Measure.format(row.fanOut, digits: 3),
                        Measure.format(row.scopeTopic, digits: 3), Measure.format(row.fanOut / row.scopeTopic, digits: 2),
                        Measure.format(row.pokesFanOut, digits: 0), Measure.format(row.pokesScopeTopic, digits: 0),
                    ], widths: [9, 10, 13, 17, 7, 9, 9]))
        }
        return rows
    }
}

extension UUID {
    fileprivate var text: String { uuidString.lowercased() }
}

/// What a member of `scopes` lists holds under each design, and what each of its (re)connections
/// costs the server: Realtime authorises every private channel's join by reading a message of the
/// topic back as the user (realtime.messages' policies), here as it runs it, timed.
struct JoinCost {
    let database: BenchDatabase

    /// (a)'s read policy: a scope's topic for its members, one InitPlan over the access table.
    static let scopeTopicPolicy = """
        create policy bench_pokes_read_scope on realtime.messages for select to authenticated
          using (extension = 'broadcast' and topic = any (array(select 'sync:scope:' || a.scope_id::text
            from public.sync_scope_access a where a.user_id = (select auth.uid()))));
        """

    func measure(scopes: Int, reconnects: Int) throws -> (ownTopic: Double, scopeTopics: Double) {
        let client = try ClientConnection(url: database.url)
        let user = UUID()
        let lists = (0..<scopes).map { _ in UUID() }
        for list in lists {
            _ = try client.query(
                "insert into public.task_lists (id, user_id, name) values ($1, $2, 'joins')", [list.text, user.text], as: user)
        }
        try database.admin.execute(script: Self.scopeTopicPolicy)
        defer { _ = try? database.admin.execute("drop policy bench_pokes_read_scope on realtime.messages") }
        let claims = #"{"role":"authenticated","sub":"\#(user.text)"}"#
        func join(_ topic: String) throws {
            try database.admin.transaction { connection in
                let id = try connection.execute(
                    "insert into realtime.messages (topic, extension) values ($1, 'broadcast') returning id::text", [topic]
                ).scalar
                try connection.execute(
                    "select set_config('role', 'authenticated', true), set_config('realtime.topic', $1, true), set_config('request.jwt.claims', $2, true)",
                    [topic, claims])
                guard try connection.execute("select count(*) from realtime.messages where id = $1::uuid", [id]).scalar == "1" else {
                    throw PokeBenchmark.Failure("the join of \(topic) was refused")
                }
                try connection.execute("rollback and chain")
            }
        }
        let own = "sync:\(user.text)"
        let scopeTopics = lists.map { "sync:scope:\($0.text)" }
        var fanOut: [Double] = []
        var perScope: [Double] = []
        for _ in 0..<3 {
            fanOut.append(try Measure.seconds { for _ in 0..<reconnects { try join(own) } } * 1e3 / Double(reconnects))
            perScope.append(
                try Measure.seconds { for _ in 0..<reconnects { for topic in [own] + scopeTopics { try join(topic) } } } * 1e3
                    / Double(reconnects))
        }
        let result = (ownTopic: Measure.median(fanOut), scopeTopics: Measure.median(perScope))
        print("\na member of \(scopes) lists: what its device holds, and the joins' authorisation per (re)connection:")
        print(tableRow(["", "channels", "joins", "ms per reconnect"], widths: [20, 10, 7, 18]))
        print(tableRow(["(b) fan-out", "1", "1", Measure.format(result.ownTopic, digits: 3)], widths: [20, 10, 7, 18]))
        print(
            tableRow(
                ["(a) scope topics", "\(scopes + 1)", "\(scopes + 1)", Measure.format(result.scopeTopics, digits: 3)],
                widths: [20, 10, 7, 18]))
        print("(a)/(b): \(Measure.format(result.scopeTopics / result.ownTopic, digits: 1))x per reconnect")
        return result
    }
}

/// An owner removes a member (a request, as PostgREST runs it) until the list is gone from the
/// member's device, whose engine runs its real schedule: with pokes through the test Realtime
/// server (poll 60 s), and polling only (every 5 s). Each trial shares the list, waits for it
/// on the device, then removes the member at a random moment of the member's poll.
struct RevokeLatency {
    let database: BenchDatabase

    func measure(trials: Int) async throws -> (poked: Latencies, polled: Latencies) {
        let realtime = try RealtimeTestServer(databaseURL: database.url, root: Repository.root)
        defer { realtime.stop() }
        let directory = Scratch.directory("bench-share-pokes", inMemory: true) ?? FileManager.default.temporaryDirectory
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = PostgresTransport(url: database.url)
        let pokes = RealtimePokes(projectURL: realtime.url, apiKey: try await realtime.anonKey())
        let client = try ClientConnection(url: database.url)

        func run(_ pokes: RealtimePokes?, _ name: String) async throws -> Latencies {
            let owner = UUID()
            let member = UUID()
            let list = UUID()
            _ = try client.query(
                "insert into public.task_lists (id, user_id, name) values ($1, $2, 'shared')", [list.text, owner.text], as: owner)
            let device = try PokeDevice(
                name, user: member, token: try await realtime.token(for: member), transport: transport, pokes: pokes, directory: directory)
            await device.engine.start()
            var times: [Double] = []
            for _ in 0..<trials {
                _ = try client.query(
                    """
                    insert into public.task_lists_members (scope_id, user_id, role) values ($1, $2, 'editor')
                    on conflict (scope_id, user_id) do update set role = excluded.role, deleted_ms = null
                    """, [list.text, member.text], as: owner)
                _ = try await device.wait(until: "\(name) holds the list") { try $0.fetchAll(TaskList.self).contains { $0.id == list } }
                try await Task.sleep(for: .milliseconds(Int.random(in: 200...(pokes == nil ? 5_200 : 700))))
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try client.query(
                    "update public.task_lists_members set deleted_ms = 1 where scope_id = $1 and user_id = $2", [list.text, member.text],
                    as: owner)
                _ = try await device.wait(until: "\(name) dropped the list") { try !$0.fetchAll(TaskList.self).contains { $0.id == list } }
                times.append(Measure.since(start) * 1e3)
            }
            await device.engine.stop()
            return Latencies(times)
        }

        let poked = try await run(pokes, "revoke-poked")
        let polled = try await run(nil, "revoke-polled")
        print("\nan owner removes a member until the list is gone from the member's device, ms:")
        print(tableRow(["", "trials", "p50", "p95", "max"], widths: [32, 8, 8, 8, 8]))
        for (label, latencies) in [("pokes (poll 60 s)", poked), ("polling only (5 s)", polled)] {
            print(
                tableRow(
                    [label, "\(latencies.count)"] + [latencies.p50, latencies.p95, latencies.max].map { Measure.format($0, digits: 0) },
                    widths: [32, 8, 8, 8, 8]))
        }
        return (poked, polled)
    }
}

extension PokeDevice {
    /// Waits until `condition` holds in this device's store, as an observation sees it.
    func wait(
        until what: String, giveUpAfter limit: Duration = .seconds(120), _ condition: @escaping @Sendable (StoreReader) throws -> Bool
    )
        async throws -> Bool
    {
        let seen = store.observe(condition)
        let watch = Task {
            for try await holds in seen where holds { return true }
            return false
        }
        let guardTask = Task {
            try await Task.sleep(for: limit)
            watch.cancel()
        }
        defer { guardTask.cancel() }
        guard try await watch.value else { throw PokeBenchmark.Failure("never: \(what)") }
        return true
    }
}
