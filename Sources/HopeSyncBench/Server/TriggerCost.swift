import Foundation
import HopeSync
import HopeSyncPostgres
import HopeSyncSchema

/// `bench server`: what the generated triggers and policies cost a push, and whether a pull uses
/// the index. Batches of 500 rows are upserted as a signed-in user's requests, the statements
/// the libpq transport sends, into a table with the generated SQL and into its plain copy (no
/// trigger, policy or row-level security): new rows, then updates that win, then repeats that
/// lose. The rows carry no stamps: the whole-row path under column merge.
enum TriggerCost {
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
        var table = TriggerCost.table
        table.name = "loose_items"
        table.exactOrdering = false
        return table
    }()

    static func run() async throws -> [Figure] {
        let cluster = try BenchCluster.start()
        defer { cluster.stop() }
        let database = try cluster.createDatabase("bench", generatedSchema: false)
        try database.admin.execute(script: try ServerTables.sql([table, unorderedTable]))
        try database.admin.execute(script: ServerTables.plainCopySQL(of: table.name, named: "plain_items"))
        let targets = [TableSchema(table), TableSchema(unorderedTable), TableSchema(table, named: "plain_items")]
        print(
            """
            Trigger cost: upserts of \(batchSize) rows per request, \(batches) requests per phase, one user; median of \(repetitions) runs.
            generated: the generated SQL; unordered: the same without exact ordering; plain: the same table with no
            triggers, policies or row-level security. Server CPU is the backend's user+system time (steadier than
            wall time on a shared machine).

            phase    rows/s: generated  unordered  plain   server CPU us/row: generated  unordered  plain   generated/plain: wall  CPU
            """)
        let client = try ClientConnection(url: database.url)
        let user = UUID()
        let costs = try client.upsertCosts(repetitions: repetitions, rows: batches * batchSize, targets: targets, as: user) {
            ids, phase, target in rows(ids, updatedMs: phase == .new ? 1 : 2, of: targets[target], owner: user)
        }
        let rowCount = Double(batches * batchSize)
        var figures: [Figure] = []
        for phase in UpsertPhase.allCases {
            let runs = costs[phase]!
            let wall = targets.indices.map { index in Measure.median(runs.map { $0[index].wall }) }
            let cpu = targets.indices.map { index in Measure.median(runs.map { $0[index].serverCPU }) }
            let cells =
                [phase.rawValue, ""] + wall.map { Measure.format(rowCount / $0, digits: 0) } + [""]
                + cpu.map { Measure.format($0 / rowCount * 1e6, digits: 1) }
                + ["", Measure.format(wall[0] / wall[2], digits: 2), Measure.format(cpu[0] / cpu[2], digits: 2)]
            print(tableRow(cells, widths: [9, 8, 11, 11, 8, 19, 11, 11, 8, 17, 6]))
            figures.append(Figure("server.\(phase.rawValue)_over_plain", cpu[0] / cpu[2], aim: 1.5))
        }
        return figures + (try pullPlan(database, client: client))
    }

    /// Every id, a batch a request: as a device without stamps sends them, at `updatedMs`.
    static func rows(_ ids: [String], updatedMs: Int64, of target: TableSchema, owner: UUID) -> [[ColumnValues]] {
        let columns = target.sentColumns(leavingOut: [.deletedMs, .columnStamps])
        let stamp = WriteStamp(ms: updatedMs, deviceID: "bench-device")
        return stride(from: 0, to: ids.count, by: batchSize).map { start in
            ids[start..<start + batchSize].enumerated().map { index, id in
                target.row(
                    id: id, owner: owner, stamp: stamp,
                    ["title": .text("item \(start + index)"), "position": .double(Double(index)), "done": .bool(false)], columns: columns)
            }
        }
    }

    /// The pull a device sends, on a table of a million rows of a thousand users, as one of
    /// them: its plan and time.
    static func pullPlan(_ database: BenchDatabase, client: ClientConnection) throws -> [Figure] {
        let rows = 1_000_000
        let users = 1_000
        let reserved = ReservedColumn.self
        // Loaded fast: triggers off, server_seq from the sequence as they would have it.
        try database.admin.execute(
            script: """
                alter table public.items disable trigger user;
                insert into public.items (\(reserved.id), \(reserved.owner), title, \(reserved.updatedMs), \(reserved.deviceId), \(reserved.serverSeq))
                  select gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad((n % \(users))::text, 12, '0'))::uuid,
                    'item ' || n, 1, 'bench-device', nextval('\(BenchDatabase.sequence)')
                  from generate_series(1, \(rows)) n;
                alter table public.items enable trigger user;
                analyze public.items;
                """)
        // One of the thousand users the fill made, with a thousand rows.
        let someone = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
        let pull = PostgresStatement.pull(TableSchema(table), sequence: reserved.serverSeq, after: Int64(rows / 2), limit: 500)
        let plan = try client.query("explain (analyze, buffers, costs off) " + pull.sql, pull.parameters, as: someone).rows.compactMap {
            $0[0]
        }
        print("\nPull on \(try database.integer("select count(*) from public.items")) rows (as the signed-in user, row-level security on):")
        for line in plan { print("  " + line) }
        let executionMs = plan.first { $0.hasPrefix("Execution Time:") }.flatMap { Double($0.split(separator: " ")[2]) } ?? .nan
        return [
            Figure(
                "server.pull_uses_index", plan.contains { $0.contains("Index Scan using") && $0.contains(reserved.serverSeq) } ? 1 : 0,
                aim: 1,
                digits: 0),
            Figure("server.pull_ms_1m_rows", executionMs, aim: nil),
        ]
    }
}
