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
    let cluster = try TemporaryCluster()
    defer { cluster.stop() }
    let admin = try Connection(url: cluster.url())
    try admin.execute(script: SupabasePrelude.roles)
    try admin.execute("create database bench")
    let connection = try Connection(url: cluster.url(database: "bench"))
    try connection.execute(script: SupabasePrelude.database)

    let renderer = SupabaseRenderer(templates: try TemplateSet(directory: nil))
    try connection.execute(script: try renderer.schemaSQL(Schema(tables: [ServerBench.table, ServerBench.unorderedTable])))
    try connection.execute(script: """
        create table public.plain_items (like public.items including defaults including constraints including indexes);
        grant select, insert, update on public.plain_items to authenticated;
        """)

    let tables = ["items", "loose_items", "plain_items"]
    print("Server push: upserts of \(ServerBench.batchSize) rows per request, \(ServerBench.batches) requests per phase, one user;")
    print("median of \(ServerBench.repetitions) runs. generated: the generated SQL; unordered: the same without exact ordering;")
    print("plain: the same table with no triggers, policies or row-level security.\n")
    print("phase      generated rows/s  unordered rows/s  plain rows/s  generated/plain time  unordered/plain time")
    let user = UUID().uuidString.lowercased()
    var seconds: [String: [String: [Double]]] = [:]
    for _ in 0..<ServerBench.repetitions {
        let ids = (0..<ServerBench.batches * ServerBench.batchSize).map { _ in UUID().uuidString.lowercased() }
        for (phase, updatedMs) in [("new", 1), ("winning", 2), ("losing", 2)] {
            for table in tables {
                seconds[phase, default: [:]][table, default: []].append(
                    try ServerBench.push(ids, updatedMs: updatedMs, into: table, as: user, on: connection))
            }
        }
    }
    let rows = Double(ServerBench.batches * ServerBench.batchSize)
    for phase in ["new", "winning", "losing"] {
        let median = tables.map { Measure.median(seconds[phase]![$0]!) }
        let columns = [phase, Measure.format(rows / median[0], digits: 0), Measure.format(rows / median[1], digits: 0),
                       Measure.format(rows / median[2], digits: 0), Measure.format(median[0] / median[2], digits: 2),
                       Measure.format(median[1] / median[2], digits: 2)]
        print(zip(columns, [11, 18, 18, 14, 22, 0]).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }.joined())
    }

    try ServerBench.fill(rows: 1_000_000, users: 1_000, on: connection)
    let someone = try connection.execute("select user_id::text from public.items where user_id <> $1 limit 1", [user]).scalar!
    let plan = try connection.transaction { connection in
        try connection.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            [#"{"role":"authenticated","sub":"\#(someone)"}"#])
        return try connection.execute("""
            explain (analyze, buffers, costs off)
            select * from public.items where user_id = $1 and server_seq > $2 order by server_seq limit 500
            """, [someone, "500000"]).rows.compactMap { $0[0] }
    }
    print("\nPull on \(try connection.execute("select count(*) from public.items").scalar!) rows (as the signed-in user, row-level security on):")
    plan.forEach { print("  " + $0) }
}

enum ServerBench {
    static let batchSize = 500
    static let batches = 40
    static let repetitions = 5

    static let table = Table(name: "items", columns: [
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

    /// Seconds to upsert every id, a batch per request.
    static func push(_ ids: [String], updatedMs: Int, into table: String, as user: String, on connection: Connection) throws -> Double {
        let columns = ["id", "user_id", "title", "position", "done", "note", "updated_ms", "device_id"]
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let tuples = (0..<batchSize).map { row in
            "(" + columns.indices.map { "$\(row * columns.count + $0 + 1)" }.joined(separator: ", ") + ")"
        }
        let sql = "insert into public.\(table) (\(columns.joined(separator: ", "))) values \(tuples.joined(separator: ", ")) on conflict (id) do update set \(updates)"
        let claims = #"{"role":"authenticated","sub":"\#(user)"}"#
        return try Measure.seconds {
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
    }

    /// Loads rows of many users quickly (triggers off, server_seq from the sequence as they
    /// would have it), then analyzes.
    static func fill(rows: Int, users: Int, on connection: Connection) throws {
        try connection.execute(script: """
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
