import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres

/// What a pushed one-row write of a task costs the server, own and shared, above the floor
/// `bench merge` measures: copies of the project's tasks table, plain (no trigger, policy or
/// row-level security) and the floor (``ServerTables/floorCopySQL(of:named:returningTrigger:)``:
/// the own-rows policies and a row trigger that only returns its row), beside the generated
/// table written as the device writes it: a new row by upsert, then (tasks are a version table)
/// a guarded update that wins and the same update again, which loses. The writer's own rows
/// (list_id null) and rows of a list they share with 1 or 9 others, one user's requests
/// through one connection, every variant in every repetition, interleaved.
enum ShareWrites {
    static let rows = 1_000
    static let repetitions = 7
    static let staleVersion = "2000-01-01 00:00:00+00"

    struct Variant {
        let label: String
        let table: TableSchema
        let list: UUID?
        /// Whether the request says its device pokes for itself (`X-Sync-Pokes: client`).
        let announced: Bool
    }

    static func run(_ database: BenchDatabase, client: ClientConnection) throws -> [Figure] {
        guard let tasks = GeneratedSchema.tables.first(where: { $0.name == "tasks" }) else { throw BenchmarkError("no tasks table") }
        try database.admin.execute(script: ServerTables.plainCopySQL(of: tasks.name, named: "share_plain"))
        try database.admin.execute(script: ServerTables.floorCopySQL(of: tasks.name, named: "share_floor", returningTrigger: true))
        let writer = ShareBenchmark.user(40)
        let (couple, team) = (ShareBenchmark.user(400), ShareBenchmark.user(401))
        try ShareBenchmark.load(tasks: 0, of: writer, in: couple, database)
        try ShareBenchmark.load(tasks: 0, of: writer, in: team, database)
        try ShareBenchmark.share(couple, with: ShareBenchmark.user(41), by: writer, client)
        for member in 42..<51 { try ShareBenchmark.share(team, with: ShareBenchmark.user(member), by: writer, client) }

        func copy(_ name: String) -> TableSchema {
            TableSchema(
                name: name, columns: tasks.columns, primaryKey: tasks.primaryKey, conflict: tasks.conflict, ordering: tasks.ordering)
        }
        let variants = [
            Variant(label: "plain", table: copy("share_plain"), list: nil, announced: false),
            Variant(label: "floor", table: copy("share_floor"), list: nil, announced: false),
            Variant(label: "own", table: tasks, list: nil, announced: true),
            Variant(label: "shared-2", table: tasks, list: couple, announced: true),
            Variant(label: "shared-10", table: tasks, list: team, announced: true),
            Variant(label: "own-db", table: tasks, list: nil, announced: false),
            Variant(label: "shared-2-db", table: tasks, list: couple, announced: false),
        ]
        print(
            """

            Writes: one task a request, \(rows) requests a phase, one user; median of \(repetitions) runs, interleaved. plain: a copy of
            tasks with no trigger, policy or row-level security; floor: the copy with the own-rows policies and a row
            trigger that only returns its row (what `bench merge` calls policies+trigger); own: the generated tasks, the
            writer's own rows; shared-2, shared-10: rows of a list the writer shares with 1 and 9 others. Those announce
            their pokes (`X-Sync-Pokes: client`, a device with a Realtime channel); -db: the database pokes (realtime.send).
            new: an upsert of a new row; winning: a guarded update of its title (version = the row's updated_at);
            losing: the update with a version the row no longer has (it changes nothing). Server CPU: the backend's user+system.
            """)
        // As the libpq transport sends them (each request planned), then prepared on a
        // connection of its own, as PostgREST sends its queries (a plan kept per connection).
        var figures: [Figure] = []
        for sender in [client, try ClientConnection(url: database.url, preparing: true)] {
            let costs = try sender.requestCosts(
                repetitions: repetitions, rows: rows, targets: variants.count, announcing: variants.map(\.announced), as: writer
            ) { ids, phase, index in
                let variant = variants[index]
                switch phase {
                case .new:
                    return try ids.map { id in try PostgresStatement.upsert([newRow(id, of: variant, writer: writer)], into: variant.table)
                    }
                case .winning:
                    return try updates(ids, variant.table, bases: try versions(of: ids, in: variant.table, database))
                case .losing:
                    // A base no row has any more (the copies keep updated_at on update, so the
                    // winning base would win there again).
                    return try updates(ids, variant.table, bases: Dictionary(uniqueKeysWithValues: ids.map { ($0, staleVersion) }))
                }
            }
            print(
                sender.preparing ? "\nPrepared statements (as PostgREST sends them):" : "\nUnprepared (as the libpq transport sends them):")
            figures += report(costs, variants, suffix: sender.preparing ? "_prepared" : "")
        }
        try ShareWriteProfile.run(
            variants.filter { ["floor", "own", "shared-2", "shared-10"].contains($0.label) }, writer: writer, database)
        return figures
    }

    /// The table of µs per request and ratios, and the figures: the new row's cost above the
    /// floor, in units of plain's (the median of each run's).
    private static func report(_ costs: [UpsertPhase: [[UpsertCost]]], _ variants: [Variant], suffix: String) -> [Figure] {
        let widths = [10] + variants.map { max($0.label.count + 2, 9) }
        print("server CPU µs a request\n" + tableRow(["phase"] + variants.map(\.label), widths: widths))
        for phase in UpsertPhase.allCases {
            let cells = variants.indices.map { index in
                Measure.format(Measure.median(costs[phase]!.map { $0[index].serverCPU }) / Double(rows) * 1e6, digits: 1)
            }
            print(tableRow([phase.rawValue] + cells, widths: widths))
        }
        print(
            "above the floor, in units of plain ((variant - floor) / plain, median of each run's)\n"
                + tableRow(["phase"] + variants.map(\.label), widths: widths))
        var above: [UpsertPhase: [Double]] = [:]
        for phase in UpsertPhase.allCases {
            above[phase] = variants.indices.map { index in
                Measure.median(costs[phase]!.map { ($0[index].serverCPU - $0[1].serverCPU) / max($0[0].serverCPU, 1e-9) })
            }
            print(tableRow([phase.rawValue] + above[phase]!.map { Measure.format($0, digits: 2) }, widths: widths))
        }
        let floor = Measure.median(costs[.new]!.map { $0[1].serverCPU / max($0[0].serverCPU, 1e-9) })
        print("(the floor itself, new rows: \(Measure.format(floor, digits: 2)) x plain)")
        func figure(_ label: String) -> Double { above[.new]![variants.firstIndex { $0.label == label }!] }
        return [
            Figure("share.write_over_floor.own" + suffix, figure("own"), aim: 0.2),
            Figure("share.write_over_floor.shared" + suffix, figure("shared-2"), aim: 0.2),
        ]
    }

    /// A new task as a device pushes it: every column but server_seq, in `variant`'s list.
    static func newRow(_ id: String, of variant: Variant, writer: UUID) -> ColumnValues {
        variant.table.row(
            id: id, owner: writer,
            [
                "title": .text("task \(id.prefix(8))"), "done": .bool(false), "updated_at": .text("2026-12-04T09:00:00+00:00"),
                "list_id": variant.list.map { .text($0.uuidString.lowercased()) } ?? .null,
            ])
    }

    /// Each row's version (updated_at) as the server holds it, read untimed.
    static func versions(of ids: [String], in table: TableSchema, _ database: BenchDatabase) throws -> [String: String] {
        let result = try database.admin.execute(
            "select id::text, updated_at::text from public.\(table.name) where id = any($1::uuid[])",
            ["{" + ids.joined(separator: ",") + "}"])
        let versions = Dictionary(uniqueKeysWithValues: result.rows.compactMap { row in row[0].flatMap { id in row[1].map { (id, $0) } } })
        guard versions.count == ids.count else {
            throw BenchmarkError("\(table.name) holds \(versions.count) of the \(ids.count) rows pushed")
        }
        return versions
    }

    /// A guarded update of each row's title from `bases`, as a device replays a queued edit.
    static func updates(_ ids: [String], _ table: TableSchema, bases: [String: String]) throws -> [PostgresStatement] {
        guard let version = table.column(named: "updated_at") else { throw BenchmarkError("\(table.name) has no updated_at") }
        return try ids.map { id in
            try PostgresStatement.guardedUpdate(
                table, id: id, version: version, baseVersion: bases[id] ?? "",
                set: ColumnValues(columns: ["title"], values: [.text("renamed")]),
                filters: [], returning: table.columns)
        }
    }
}
