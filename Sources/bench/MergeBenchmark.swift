import Foundation
import Postgres
import SyncGenerator
import SyncSchema
import SyncTestSupport

/// `bench merge` (server half): the same seeded edit history under column-by-column and
/// whole-row merge on a real PostgreSQL, counting the column edits each loses; then what an
/// upsert costs the server under each mode beside the same table plain: new rows, winning
/// updates and losing repeats. Starts its own throwaway cluster. `BENCH_SEED` picks another
/// history; `BENCH_BASELINE_TEMPLATES=DIR` also measures the server code that templates in DIR
/// render (an older hope-sync's `Templates/`), interleaved with the built-in one in the same run.
func runMergeBenchmark() async throws {
    let bench = try BenchCluster.start()
    defer { bench.stop() }
    let connection = bench.connection
    let renderer = SupabaseRenderer(templates: try TemplateSet(directory: nil))
    try connection.execute(
        script: try renderer.schemaSQL(
            Schema(tables: [
                MergeBench.table("history_by_column", .column), MergeBench.table("history_by_row", .row),
                MergeBench.table("cost_column", .column), MergeBench.table("cost_column_whole", .column),
                MergeBench.table("cost_row", .row),
            ]), columnOrder: ServerColumnOrder()))
    let baseline = ProcessInfo.processInfo.environment["BENCH_BASELINE_TEMPLATES"].flatMap { $0.isEmpty ? nil : $0 }
    if let baseline {
        let old = SupabaseRenderer(templates: try TemplateSet(directory: URL(fileURLWithPath: baseline)))
        try connection.execute(
            script: try old.schemaSQL(
                Schema(tables: [
                    MergeBench.table("base_column", .column), MergeBench.table("base_column_whole", .column),
                    MergeBench.table("base_row", .row),
                ]), columnOrder: ServerColumnOrder()))
        // Both renderings share the sequence and the owner-lock function: the current one is kept.
        try connection.execute(
            script: try renderer.schemaSQL(Schema(tables: [MergeBench.table("cost_column", .column)]), columnOrder: ServerColumnOrder()))
    }
    try connection.execute(
        script: """
            create table public.cost_plain (like public.cost_column including defaults including constraints including indexes);
            grant select, insert, update on public.cost_plain to authenticated;
            """)

    let seed = UInt64(ProcessInfo.processInfo.environment["BENCH_SEED"] ?? "") ?? 14
    let history = MergeBench.History(seed: seed)
    let user = UUID().uuidString.lowercased()
    print(
        """
        Lost edits: \(history.devices) devices edit random columns of \(history.rows) shared rows offline, then push in a \
        random order; \(history.rounds) rounds (each device pulls first), \(history.edits.count) column edits, seed \(seed).
        An edit is lost when the server's final value of its column is not the one written with that column's largest pair.

        merge      edited columns  lost  kept
        """)
    for (mode, table) in [(MergeMode.column, "history_by_column"), (.row, "history_by_row")] {
        let final = try history.replay(into: table, mode: mode, as: user, on: connection)
        let (registers, lost) = history.lost(final)
        let cells = ["\(mode.rawValue)", "\(registers)", "\(lost)", "\(registers - lost)"]
        print(zip(cells, [11, 16, 6, 0]).map { $0.padding(toLength: max($1, $0.count + 1), withPad: " ", startingAt: 0) }.joined())
    }

    guard let backend = Int32(try connection.execute("select pg_backend_pid()").scalar ?? "") else {
        throw PostgresError(message: "no backend process id")
    }
    // Every variant in every repetition, interleaved, so a busy moment of the machine falls on
    // all of them alike.
    var variants: [MergeBench.Variant] = [
        .init(label: "plain", table: "cost_plain", stamps: true), .init(label: "row", table: "cost_row", stamps: false),
        .init(label: "whole-row", table: "cost_column_whole", stamps: false), .init(label: "column", table: "cost_column", stamps: true),
    ]
    if baseline != nil {
        variants += [
            .init(label: "row (old)", table: "base_row", stamps: false),
            .init(label: "whole-row (old)", table: "base_column_whole", stamps: false),
            .init(label: "column (old)", table: "base_column", stamps: true),
        ]
    }
    print(
        """

        Upsert cost: \(MergeBench.batchSize) rows per request, \(MergeBench.batches) requests per phase, one user; median of \
        \(MergeBench.repetitions) runs, interleaved. plain: the column table's copy with no triggers, policies or row-level
        security, sent the same rows as column; row: merge: row; whole-row: the column-merge table, a client sending no
        stamps; column: the column-merge trigger, the device sending column_stamps (a winning update changes one column).
        new: rows the server lacks; winning: the same rows, newer; losing: the winning push again (a repeat).\
        \(baseline.map { "\n(old): the same tables with the server code that the templates in \($0) render." } ?? "")
        Server CPU is the backend's user+system time (steadier than wall time on a shared machine).

        """)
    let phases = MergeBench.Phase.allCases
    var costs: [MergeBench.Phase: [[ServerBench.Cost]]] = [:]
    for _ in 0..<MergeBench.repetitions {
        let ids = (0..<MergeBench.batches * MergeBench.batchSize).map { _ in UUID().uuidString.lowercased() }
        for phase in phases {
            var runs: [ServerBench.Cost] = []
            for variant in variants {
                runs.append(
                    try MergeBench.push(
                        ids, winning: phase != .new, stamps: variant.stamps, into: variant.table, as: user,
                        on: connection, backend: backend))
            }
            costs[phase, default: []].append(runs)
        }
    }
    let rows = Double(MergeBench.batches * MergeBench.batchSize)
    let widths = [10] + variants.map { max($0.label.count + 2, 9) }
    func line(_ cells: [String]) -> String {
        zip(cells, widths + [0]).map { $0.padding(toLength: max($1, $0.count + 1), withPad: " ", startingAt: 0) }.joined()
    }
    for (title, value) in [("server CPU us/row", \ServerBench.Cost.serverCPU), ("rows/s (wall)", \ServerBench.Cost.wall)] {
        print("\(title)\n" + line(["phase"] + variants.map(\.label)))
        for phase in phases {
            let runs = costs[phase]!
            let medians = variants.indices.map { index in Measure.median(runs.map { $0[index][keyPath: value] }) }
            let cells = medians.map {
                title.hasPrefix("server") ? Measure.format($0 / rows * 1e6, digits: 1) : Measure.format(rows / $0, digits: 0)
            }
            print(line([phase.rawValue] + cells))
        }
        print("")
    }
    print("ratio to plain (server CPU; median of each run's ratio)\n" + line(["phase"] + variants.map(\.label)))
    for phase in phases {
        let runs = costs[phase]!
        let ratios = variants.indices.map { index in Measure.median(runs.map { $0[index].serverCPU / max($0[0].serverCPU, 1e-9) }) }
        print(line([phase.rawValue] + ratios.map { Measure.format($0, digits: 2) }))
    }
}

enum MergeBench {
    static let batchSize = 500
    static let batches = 20
    static let repetitions = 5

    struct Variant {
        var label: String
        var table: String
        var stamps: Bool
    }

    enum Phase: String, CaseIterable {
        case new, winning, losing
    }

    /// Five user columns, every edit of which writes a value no other edit writes.
    static let columns = ["title", "note", "color", "tag", "position"]

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

    static func stamp(_ ms: Int, _ device: String) -> String {
        let digits = String(ms)
        return String(repeating: "0", count: max(0, 15 - digits.count)) + digits + ":" + device
    }

    static func json(_ stamps: [String: String]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: stamps, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// Pairs order by milliseconds, then by device id bytewise.
    static func precedes(_ a: (ms: Int, device: String), _ b: (ms: Int, device: String)) -> Bool {
        a.ms != b.ms ? a.ms < b.ms : Array(a.device.utf8).lexicographicallyPrecedes(Array(b.device.utf8))
    }

    struct Edit {
        var round: Int
        var device: Int
        var row: Int
        var column: String
        var value: String
        var ms: Int
        var deviceID: String { "device-\(device)" }
    }

    /// A seeded history: in each round every device, having pulled, edits random columns of
    /// random rows offline (its clock strictly increasing), then the devices push in a random order.
    struct History {
        let rows = 100
        let devices = 5
        let rounds = 8
        let editsPerRound = 25
        let ids: [String]
        let edits: [Edit]
        let pushOrders: [[Int]]

        init(seed: UInt64) {
            var random = SeededGenerator(seed: seed)
            ids = (0..<rows).map { _ in
                let hex = String(format: "%016llx%016llx", random.next(), random.next())
                let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
                    String(hex.dropFirst(range.lowerBound).prefix(range.count))
                }
                return parts.joined(separator: "-")
            }
            var edits: [Edit] = []
            var orders: [[Int]] = []
            for round in 0..<rounds {
                for device in 0..<devices {
                    let times = (0..<editsPerRound).map { _ in 10_000 * (round + 1) + Int.random(in: 0..<5_000, using: &random) }
                    var last = 0
                    for ms in times.sorted() {
                        let ms = max(ms, last + 1)
                        last = ms
                        let row = Int.random(in: 0..<rows, using: &random)
                        let column = MergeBench.columns.randomElement(using: &random)!
                        let index = edits.count
                        let value = column == "position" ? String(index) : "e\(index)"
                        edits.append(Edit(round: round, device: device, row: row, column: column, value: value, ms: ms))
                    }
                }
                orders.append((0..<devices).shuffled(using: &random))
            }
            self.edits = edits
            pushOrders = orders
        }

        /// A device's copy of a row: values, each column's stamp (column merge), the row's pair.
        struct Copy {
            var values: [String: String?]
            var stamps: [String: String]
            var dirty = false
        }

        /// Plays the history against `table` and returns its final rows (id -> column -> value).
        func replay(into table: String, mode: MergeMode, as user: String, on connection: Connection) throws -> [String: [String: String?]] {
            let initial = ids.map { id in
                Copy(
                    values: [
                        "id": id, "title": "initial", "note": nil, "color": "#8E8E93", "tag": nil, "position": "0",
                        "updated_ms": "1", "device_id": "seed",
                    ],
                    stamps: Dictionary(
                        uniqueKeysWithValues: (MergeBench.columns + ["deleted_ms"]).map { ($0, MergeBench.stamp(1, "seed")) }),
                    dirty: true)
            }
            try push(initial, into: table, mode: mode, as: user, on: connection)
            for round in 0..<rounds {
                // Every device pulls, then edits offline.
                var copies = (0..<devices).map { _ in [String: Copy]() }
                let pulled = try pull(table, mode: mode, on: connection)
                for device in 0..<devices { copies[device] = pulled }
                for edit in edits where edit.round == round {
                    let id = ids[edit.row]
                    var copy = copies[edit.device][id]!
                    copy.values[edit.column] = .some(edit.value)
                    copy.stamps[edit.column] = MergeBench.stamp(edit.ms, edit.deviceID)
                    copy.values["updated_ms"] = .some(String(edit.ms))
                    copy.values["device_id"] = .some(edit.deviceID)
                    copy.dirty = true
                    copies[edit.device][id] = copy
                }
                for device in pushOrders[round] {
                    try push(Array(copies[device].values), into: table, mode: mode, as: user, on: connection)
                }
            }
            return try pull(table, mode: mode, on: connection).mapValues(\.values)
        }

        func pull(_ table: String, mode: MergeMode, on connection: Connection) throws -> [String: Copy] {
            let stampsColumn = mode == .column ? "column_stamps::text" : "null"
            let result = try connection.execute(
                "select id::text, title, note, color, tag, position::text, updated_ms::text, device_id, \(stampsColumn) from public.\(table)"
            )
            var copies: [String: Copy] = [:]
            for row in result.rows {
                let names = ["id", "title", "note", "color", "tag", "position", "updated_ms", "device_id"]
                let values = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, row[$0]) })
                var stamps: [String: String] = [:]
                if let text = row[8], let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String] {
                    stamps = object
                }
                copies[row[0]!] = Copy(values: values, stamps: stamps)
            }
            return copies
        }

        /// One request with the device's dirty rows: whole rows, plus their stamps under column merge.
        func push(_ copies: [Copy], into table: String, mode: MergeMode, as user: String, on connection: Connection) throws {
            let dirty = copies.filter(\.dirty)
            guard !dirty.isEmpty else { return }
            var columns = ["id", "user_id"] + MergeBench.columns + ["updated_ms", "device_id"]
            if mode == .column { columns.append("column_stamps") }
            var parameters: [String?] = []
            let tuples = dirty.map { copy in
                "("
                    + columns.map { column in
                        switch column {
                        case "user_id": parameters.append(user)
                        case "column_stamps": parameters.append(MergeBench.json(copy.stamps))
                        default: parameters.append(copy.values[column] ?? nil)
                        }
                        return "$\(parameters.count)"
                    }.joined(separator: ", ") + ")"
            }
            let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            let sql =
                "insert into public.\(table) (\(columns.joined(separator: ", "))) values \(tuples.joined(separator: ", ")) on conflict (id) do update set \(updates)"
            try connection.transaction { connection in
                try connection.execute(
                    "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
                    [#"{"role":"authenticated","sub":"\#(user)"}"#])
                try connection.execute(sql, parameters)
            }
        }

        /// The registers (row, column) some edit wrote, and how many of them do not hold the
        /// value of their largest-pair edit.
        func lost(_ final: [String: [String: String?]]) -> (registers: Int, lost: Int) {
            var winners: [String: Edit] = [:]
            for edit in edits {
                let key = "\(edit.row)/\(edit.column)"
                if let current = winners[key], !MergeBench.precedes((current.ms, current.deviceID), (edit.ms, edit.deviceID)) { continue }
                winners[key] = edit
            }
            var lost = 0
            for edit in winners.values {
                let stored = final[ids[edit.row]]?[edit.column] ?? nil
                let same =
                    edit.column == "position"
                    ? stored.flatMap(Double.init) == Double(edit.value) : stored == edit.value
                if !same { lost += 1 }
            }
            return (winners.count, lost)
        }
    }

    /// Upserts every id, a batch per request: new rows, or (`winning`) updates with a newer pair.
    /// With `stamps` the rows carry column_stamps as a column-merge device sends them: a new
    /// row every column at its pair, an update only the changed title at the newer pair.
    static func push(
        _ ids: [String], winning: Bool, stamps: Bool, into table: String, as user: String, on connection: Connection,
        backend: Int32
    ) throws -> ServerBench.Cost {
        var columns = ["id", "user_id", "title", "note", "color", "tag", "position", "updated_ms", "device_id"]
        if stamps { columns.append("column_stamps") }
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let tuples = (0..<batchSize).map { row in
            "(" + columns.indices.map { "$\(row * columns.count + $0 + 1)" }.joined(separator: ", ") + ")"
        }
        let sql =
            "insert into public.\(table) (\(columns.joined(separator: ", "))) values \(tuples.joined(separator: ", ")) on conflict (id) do update set \(updates)"
        let claims = #"{"role":"authenticated","sub":"\#(user)"}"#
        var stampsObject = Dictionary(uniqueKeysWithValues: (MergeBench.columns + ["deleted_ms"]).map { ($0, stamp(1, "bench-device")) })
        if winning { stampsObject["title"] = stamp(2, "bench-device") }
        let stampsText = json(stampsObject)
        let updatedMs = winning ? "2" : "1"
        let cpuBefore = try ServerBench.cpuSeconds(of: backend)
        let wall = try Measure.seconds {
            for start in stride(from: 0, to: ids.count, by: batchSize) {
                var parameters: [String?] = []
                parameters.reserveCapacity(batchSize * columns.count)
                for (index, id) in ids[start..<start + batchSize].enumerated() {
                    parameters += [
                        id, user, winning ? "item \(start + index) renamed" : "item \(start + index)", nil, "#FF0000", nil,
                        String(index), updatedMs, "bench-device",
                    ]
                    if stamps { parameters.append(stampsText) }
                }
                try connection.transaction { connection in
                    try connection.execute(
                        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)", [claims])
                    try connection.execute(sql, parameters)
                }
            }
        }
        return ServerBench.Cost(wall: wall, serverCPU: try ServerBench.cpuSeconds(of: backend) - cpuBefore)
    }
}
