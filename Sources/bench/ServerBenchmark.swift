import Foundation
import Postgres
import SyncGenerator
import SyncSchema

/// `bench server`: what the generated triggers and policies cost a push, and whether a pull
/// uses the index. Starts its own throwaway cluster.
///
/// Upserts batches of 500 rows (PostgREST's `insert ... on conflict (id) do update`, one
/// request per batch, as a signed-in user) into a table with the generated SQL and into the
/// same table with no triggers, policies or row-level security: new rows, then updates that
/// win, then repeats that lose.
func runServerBenchmark() async throws {
    let bench = try BenchCluster.start()
    defer { bench.stop() }
    let connection = bench.connection

    let renderer = SupabaseRenderer(templates: try TemplateSet(directory: nil))
    try connection.execute(
        script: try renderer.schemaSQL(Schema(tables: [ServerBench.table, ServerBench.unorderedTable]), columnOrder: ServerColumnOrder()))
    try connection.execute(
        script: """
            create table public.plain_items (like public.items including defaults including constraints including indexes);
            grant select, insert, update on public.plain_items to authenticated;
            """)

    let tables = ["items", "loose_items", "plain_items"]
    print(
        """
        Server push: upserts of \(ServerBench.batchSize) rows per request, \(ServerBench.batches) requests per phase, one user; \
        median of \(ServerBench.repetitions) runs.
        generated: the generated SQL; unordered: the same without exact ordering; plain: the same table with no
        triggers, policies or row-level security. Server CPU is the backend's user+system time (steadier than
        wall time on a shared machine).

        phase    rows/s: generated  unordered  plain   server CPU us/row: generated  unordered  plain   generated/plain: wall  CPU
        """)
    let user = UUID().uuidString.lowercased()
    guard let backend = Int32(try connection.execute("select pg_backend_pid()").scalar ?? "") else {
        throw PostgresError(message: "no backend process id")
    }
    var costs: [String: [String: [ServerBench.Cost]]] = [:]
    for _ in 0..<ServerBench.repetitions {
        let ids = (0..<ServerBench.batches * ServerBench.batchSize).map { _ in UUID().uuidString.lowercased() }
        for (phase, updatedMs) in [("new", 1), ("winning", 2), ("losing", 2)] {
            for table in tables {
                let cost = try ServerBench.push(ids, updatedMs: updatedMs, into: table, as: user, on: connection, backend: backend)
                costs[phase, default: [:]][table, default: []].append(cost)
            }
        }
    }
    let rows = Double(ServerBench.batches * ServerBench.batchSize)
    for phase in ["new", "winning", "losing"] {
        let wall = tables.map { table in Measure.median(costs[phase]![table]!.map(\.wall)) }
        let cpu = tables.map { table in Measure.median(costs[phase]![table]!.map(\.serverCPU)) }
        let cells =
            [phase, ""] + wall.map { Measure.format(rows / $0, digits: 0) } + [""]
            + cpu.map { Measure.format($0 / rows * 1e6, digits: 1) } + [
                "", Measure.format(wall[0] / wall[2], digits: 2), Measure.format(cpu[0] / cpu[2], digits: 2),
            ]
        let widths = [9, 8, 11, 11, 8, 19, 11, 11, 8, 17, 6, 0]
        print(zip(cells, widths).map { $0.padding(toLength: max($1, $0.count + 1), withPad: " ", startingAt: 0) }.joined())
    }

    try ServerBench.fill(rows: 1_000_000, users: 1_000, on: connection)
    let someone = try connection.execute("select user_id::text from public.items where user_id <> $1 limit 1", [user]).scalar!
    let plan = try connection.transaction { connection in
        try connection.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"role":"authenticated","sub":"\#(someone)"}"#])
        return try connection.execute(
            """
            explain (analyze, buffers, costs off)
            select * from public.items where user_id = $1 and server_seq > $2 order by server_seq limit 500
            """, [someone, "500000"]
        ).rows.compactMap { $0[0] }
    }
    print(
        "\nPull on \(try connection.execute("select count(*) from public.items").scalar!) rows (as the signed-in user, row-level security on):"
    )
    for line in plan { print("  " + line) }
}

enum ServerBench {
    static let batchSize = 500
    static let batches = 40
    static let repetitions = 5

    static let table = Table(
        name: "items",
        columns: [
            Column(name: "title", type: .text),
            Column(name: "position", type: .double, defaultValue: .double(0)),
            Column(name: "done", type: .bool, defaultValue: .bool(false)),
            Column(name: "note", type: .text, isNullable: true),
        ])

    static let unorderedTable: Table = {
        var table = ServerBench.table
        table.name = "loose_items"
        table.exactOrdering = false
        return table
    }()

    struct Cost {
        var wall: Double
        var serverCPU: Double
    }

    /// The time to upsert every id, a batch per request: wall clock, and the CPU the server
    /// process spent.
    static func push(
        _ ids: [String], updatedMs: Int, into table: String, as user: String, on connection: Connection, backend: Int32
    ) throws -> Cost {
        let columns = ["id", "user_id", "title", "position", "done", "note", "updated_ms", "device_id"]
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let tuples = (0..<batchSize).map { row in
            "(" + columns.indices.map { "$\(row * columns.count + $0 + 1)" }.joined(separator: ", ") + ")"
        }
        let sql =
            "insert into public.\(table) (\(columns.joined(separator: ", "))) values \(tuples.joined(separator: ", ")) on conflict (id) do update set \(updates)"
        let claims = #"{"role":"authenticated","sub":"\#(user)"}"#
        let cpuBefore = try cpuSeconds(of: backend)
        let wall = try Measure.seconds {
            for start in stride(from: 0, to: ids.count, by: batchSize) {
                var parameters: [String?] = []
                for (index, id) in ids[start..<start + batchSize].enumerated() {
                    parameters += [id, user, "item \(start + index)", String(index), "false", nil, String(updatedMs), "bench-device"]
                }
                try connection.transaction { connection in
                    try connection.execute(
                        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)", [claims])
                    try connection.execute(sql, parameters)
                }
            }
        }
        return Cost(wall: wall, serverCPU: try cpuSeconds(of: backend) - cpuBefore)
    }

    /// User plus system CPU seconds of a process on this machine (Linux: /proc/PID/stat).
    static func cpuSeconds(of process: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses and may hold spaces.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        let ticks = Double(fields[11])! + Double(fields[12])!
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Loads rows of many users quickly (triggers off, server_seq from the sequence as they
    /// would have it), then analyzes.
    static func fill(rows: Int, users: Int, on connection: Connection) throws {
        try connection.execute(
            script: """
                alter table public.items disable trigger user;
                insert into public.items (id, user_id, title, updated_ms, device_id, server_seq)
                  select gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad((n % \(users))::text, 12, '0'))::uuid,
                    'item ' || n, 1, 'bench-device', nextval('public.sync_server_seq')
                  from generate_series(1, \(rows)) n;
                alter table public.items enable trigger user;
                analyze public.items;
                """)
    }
}
