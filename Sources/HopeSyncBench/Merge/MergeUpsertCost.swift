import Foundation
import HopeSync
import HopeSyncModel

/// What an upsert costs the server under each merge mode beside the same table plain: batches
/// of 1, 50 and 500 rows as a signed-in user's requests (the statements the libpq transport
/// sends); new rows, winning updates and losing repeats; every variant in every repetition,
/// interleaved. A figure is the worst of the batch sizes (issue 19's aims hold for each).
enum MergeUpsertCost {
    /// Rows per request, and rows per phase: enough 10 ms ticks of server CPU for each.
    static let batchSizes = [(size: 1, rows: 2_000), (size: 50, rows: 10_000), (size: 500, rows: 10_000)]
    static let repetitions = 5
    static let aims: [UpsertPhase: Double] = [.new: 1.2, .winning: 1.3, .losing: 1.0]

    struct Variant {
        let label: String
        let table: TableSchema
        /// Whether the rows carry column_stamps, as a column-merge device sends them.
        let stamps: Bool
        /// Whether the requests say their device announces the write (`X-Sync-Pokes: client`).
        let announced: Bool

        init(_ label: String, _ table: TableSchema, stamps: Bool, announced: Bool = false) {
            self.label = label
            self.table = table
            self.stamps = stamps
            self.announced = announced
        }

        /// The column-merge variants, whose ratios to plain are figures.
        var hasFigure: Bool { label.hasPrefix("column") || announced }
    }

    /// The first variant is the plain table every ratio is to.
    static func run(_ variants: [Variant], client: ClientConnection, oldTemplates: String?) throws -> [Figure] {
        print(
            """

            Upsert cost: batches of \(batchSizes.map { "\($0.size)" }.joined(separator: ", ")) rows per request, one user; median of \
            \(repetitions) runs, interleaved. plain: the column table's copy with no triggers, policies or row-level
            security, sent the same rows as column; row: merge: row; whole-row: the column-merge table, a client sending no
            stamps; column: the column-merge trigger, the device sending column_stamps (a winning update changes one column);
            announced: column with `X-Sync-Pokes: client`, the device poking for itself (the database sends none). Supabase's
            realtime schema is there, so the database's pokes cost what they cost on Supabase. policies: plain with the
            generated own-rows policies and row-level security; policies+trigger: and a row trigger that only returns its
            row (the floor of any design that keeps users to their rows and checks writes in PL/pgSQL).
            new: rows the server lacks; winning: the same rows, newer; losing: the winning push again (a repeat).\
            \(oldTemplates.map { "\n(old): the same tables with the server code that the templates in \($0) render." } ?? "")
            Server CPU is the backend's user+system time (steadier than wall time on a shared machine).
            """)
        var worst: [String: Double] = [:]
        for batch in batchSizes {
            let ratios = try measure(variants, batch: batch, client: client)
            for (name, ratio) in ratios { worst[name] = max(worst[name] ?? ratio, ratio) }
        }
        return UpsertPhase.allCases.flatMap { phase in
            variants.filter(\.hasFigure).map { variant in
                let name = figureName(phase, variant)
                return Figure(name, worst[name] ?? .nan, aim: aims[phase]!)
            }
        }
    }

    private static func figureName(_ phase: UpsertPhase, _ variant: Variant) -> String {
        let suffix = variant.label.hasSuffix("(old)") ? "_old" : variant.announced ? "_announced" : ""
        return "merge.\(phase.rawValue)_over_plain\(suffix)"
    }

    /// One batch size: the tables of CPU and rate, and each column variant's ratio to plain by figure name.
    private static func measure(_ variants: [Variant], batch: (size: Int, rows: Int), client: ClientConnection) throws -> [String: Double] {
        let user = UUID()
        let costs = try client.upsertCosts(
            repetitions: repetitions, rows: batch.rows, targets: variants.map(\.table), announcing: variants.map(\.announced), as: user
        ) {
            ids, phase, variant in rows(ids, winning: phase != .new, of: variants[variant], owner: user, batchSize: batch.size)
        }
        let rowCount = Double(batch.rows)
        let widths = [10] + variants.map { max($0.label.count + 2, 9) }
        print("\n\(batch.size) rows per request, \(batch.rows / batch.size) requests per phase")
        for (title, perRow) in [("server CPU us/row", true), ("rows/s (wall)", false)] {
            print("\(title)\n" + tableRow(["phase"] + variants.map(\.label), widths: widths))
            for phase in UpsertPhase.allCases {
                let medians = variants.indices.map { index in
                    Measure.median(costs[phase]!.map { perRow ? $0[index].serverCPU : $0[index].wall })
                }
                let cells = medians.map {
                    perRow ? Measure.format($0 / rowCount * 1e6, digits: 1) : Measure.format(rowCount / $0, digits: 0)
                }
                print(tableRow([phase.rawValue] + cells, widths: widths))
            }
        }
        print("ratio to plain (server CPU; median of each run's ratio)\n" + tableRow(["phase"] + variants.map(\.label), widths: widths))
        var figures: [String: Double] = [:]
        for phase in UpsertPhase.allCases {
            let ratios = variants.indices.map { index in
                Measure.median(costs[phase]!.map { $0[index].serverCPU / max($0[0].serverCPU, 1e-9) })
            }
            print(tableRow([phase.rawValue] + ratios.map { Measure.format($0, digits: 2) }, widths: widths))
            for (variant, ratio) in zip(variants, ratios) where variant.hasFigure {
                figures[figureName(phase, variant)] = ratio
            }
        }
        return figures
    }

    /// Every id, a batch a request: new rows, or (`winning`) updates with a newer pair. With
    /// stamps, a new row has every column at its pair and an update only the changed title at
    /// the newer pair.
    static func rows(_ ids: [String], winning: Bool, of variant: Variant, owner: UUID, batchSize: Int) -> [[ColumnValues]] {
        let table = variant.table
        let columns = table.sentColumns(leavingOut: variant.stamps ? [.deletedMs] : [.deletedMs, .columnStamps])
        let first = WriteStamp(ms: 1, deviceID: "bench-device")
        let stamp = winning ? WriteStamp(ms: 2, deviceID: first.deviceID) : first
        var stamps = ColumnStamps(Dictionary(uniqueKeysWithValues: table.stampedColumns.map { ($0.name, first) }))
        if winning { stamps["title"] = stamp }
        return stride(from: 0, to: ids.count, by: batchSize).map { start in
            ids[start..<start + batchSize].enumerated().map { index, id in
                table.row(
                    id: id, owner: owner, stamp: stamp,
                    [
                        "title": .text(winning ? "item \(start + index) renamed" : "item \(start + index)"), "color": .text("#FF0000"),
                        "position": .double(Double(index)), ReservedColumn.columnStamps: .text(stamps.json),
                    ], columns: columns)
            }
        }
    }
}
