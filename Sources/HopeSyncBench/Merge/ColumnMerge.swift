import Foundation
import HopeSync
import HopeSyncPostgresCluster
import HopeSyncSchema

/// `bench merge`: the same seeded edit history under column-by-column and whole-row merge on a
/// real PostgreSQL, counting the column edits each loses (``LostEdits``); then what an upsert
/// costs the server under each mode beside the same table plain (``MergeUpsertCost``).
/// `BENCH_SEED` picks another history; `BENCH_BASELINE_TEMPLATES=DIR` also measures the server
/// code that the templates in DIR render (an older hope-sync's `Templates/`), interleaved with
/// the built-in one in the same run.
enum ColumnMerge {
    /// Five user columns, every edit of which writes a value no other edit writes.
    static let userColumns = ["title", "note", "color", "tag", "position"]

    static func table(_ name: String, _ merge: MergeMode) -> Table {
        Table(
            name: name, merge: merge,
            columns: [
                Column(name: "title", type: .text),
                Column(name: "note", type: .text, isNullable: true),
                Column(name: "color", type: .text, defaultValue: .text("#8E8E93")),
                Column(name: "tag", type: .text, isNullable: true),
                Column(name: "position", type: .double, defaultValue: .double(0)),
            ])
    }

    static func run() async throws -> [Figure] {
        let cluster = try BenchCluster.start()
        defer { cluster.stop() }
        let database = try cluster.createDatabase("bench", generatedSchema: false)
        // Realtime's schema first: the tables' pokes then call realtime.send, as on Supabase.
        try database.admin.execute(script: SupabasePrelude.realtime)
        let history = [table("history_by_column", .column), table("history_by_row", .row)]
        let cost = [table("cost_column", .column), table("cost_column_whole", .column), table("cost_row", .row)]
        try database.admin.execute(script: try ServerTables.sql(history + cost))
        let templates = ProcessInfo.processInfo.environment["BENCH_BASELINE_TEMPLATES"].flatMap { $0.isEmpty ? nil : $0 }
        let old = [table("base_column", .column), table("base_column_whole", .column), table("base_row", .row)]
        if let templates {
            try database.admin.execute(script: try ServerTables.sql(old, templates: URL(fileURLWithPath: templates)))
            // Both renderings share the sequence and the owner-lock function: the current one is kept.
            try database.admin.execute(script: try ServerTables.sql([cost[0]]))
        }
        try database.admin.execute(script: ServerTables.plainCopySQL(of: cost[0].name, named: "cost_plain"))
        try database.admin.execute(script: ServerTables.floorCopySQL(of: cost[0].name, named: "cost_policies", returningTrigger: false))
        try database.admin.execute(script: ServerTables.floorCopySQL(of: cost[0].name, named: "cost_floor", returningTrigger: true))

        let seed = UInt64(ProcessInfo.processInfo.environment["BENCH_SEED"] ?? "") ?? 14
        var figures = try await LostEdits(seed: seed).run(byColumn: history[0], byRow: history[1], url: database.url)

        // Every variant in every repetition, interleaved, so a busy moment of the machine falls
        // on all of them alike.
        typealias Variant = MergeUpsertCost.Variant
        var variants = [
            Variant("plain", TableSchema(cost[0], named: "cost_plain"), stamps: true), Variant("row", TableSchema(cost[2]), stamps: false),
            Variant("whole-row", TableSchema(cost[1]), stamps: false), Variant("column", TableSchema(cost[0]), stamps: true),
            Variant("announced", TableSchema(cost[0]), stamps: true, announced: true),
            Variant("policies", TableSchema(cost[0], named: "cost_policies"), stamps: true),
            Variant("policies+trigger", TableSchema(cost[0], named: "cost_floor"), stamps: true),
        ]
        if templates != nil {
            variants += [
                Variant("row (old)", TableSchema(old[2]), stamps: false), Variant("whole-row (old)", TableSchema(old[1]), stamps: false),
                Variant("column (old)", TableSchema(old[0]), stamps: true),
            ]
        }
        figures += try MergeUpsertCost.run(variants, client: ClientConnection(url: database.url), oldTemplates: templates)
        return figures
    }
}
