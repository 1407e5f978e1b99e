import Foundation
import HopeSchema
import HopeSyncModel
import HopeSyncTestSupport
import Testing

@testable import HopeSync

/// RowMerge holds a row by place (values in table order, stamps in register order, anything
/// else aside by name); it once held it by name. The merge by name is kept here as it was
/// (``ByName``), and random rows (partial ones, stamps and values of names the table lacks, ties,
/// deletes) must merge and settle to the same values and stamps either way.
@Suite struct RowMergeTests {
    static let tables: [TableSchema] = [
        Activity.table, Session.table,
        // A hand-built table that merges columns with none of the other reserved columns.
        TableSchema(
            name: "bare",
            columns: [
                .init("id", .uuid, role: .id), .init("a", .text), .init("b", .int, nullable: true),
                .init("column_stamps", .json, nullable: true, role: .columnStamps),
            ], conflict: .lww, ordering: .exact),
    ]

    @Test(arguments: 0..<tables.count)
    func mergeAndSettleAreTheMergeByName(_ index: Int) {
        let table = Self.tables[index]
        let merge = RowMerge(table)
        let byName = ByName(table)
        var random = SeededGenerator(seed: 2_300 + UInt64(index))
        for round in 0..<3_000 {
            let incoming = Self.randomRow(table, &random)
            let stored = Self.randomRow(table, &random)
            let rows = (
                merge.row(values: incoming.values, stamps: incoming.stamps), merge.row(values: stored.values, stamps: stored.stamps)
            )
            // The conversions lose nothing.
            #expect(merge.values(of: rows.0) == incoming.values && merge.columnStamps(of: rows.0) == incoming.stamps)

            let expected = byName.merge(incoming, into: stored)
            let merged = merge.merge(rows.0, into: rows.1)
            #expect(merged.map(merge.values(of:)) == expected?.values, "\(table.name) round \(round)")
            #expect(merged.map(merge.columnStamps(of:)) == expected?.stamps, "\(table.name) round \(round)")

            var settledByName = stored
            byName.settle(&settledByName)
            var settled = rows.1
            merge.settle(&settled)
            #expect(merge.values(of: settled) == settledByName.values, "\(table.name) round \(round)")
            #expect(merge.columnStamps(of: settled) == settledByName.stamps, "\(table.name) round \(round)")

            #expect(merge.stamps(of: rows.0) == byName.stamps(of: incoming.values))
            #expect(merge.stamps(of: incoming.values) == byName.stamps(of: incoming.values))
            #expect(merge.newest(rows.0) == incoming.stamps.newest)
            #expect(merge.pair(of: rows.0) == WriteStamp(pairOf: incoming.values))
        }
    }

    /// A row by name: most columns present (some null), now and then a name the table lacks; some
    /// columns stamped from a few pairs (so stamps tie), now and then a name no register has;
    /// `column_stamps` absent, null, text that is not stamps, or some stamps' text.
    static func randomRow(_ table: TableSchema, _ random: inout SeededGenerator) -> ByName.Row {
        let pairs = [
            WriteStamp(ms: 1, deviceID: "a"), WriteStamp(ms: 2, deviceID: "a"), WriteStamp(ms: 2, deviceID: "b"),
            WriteStamp(ms: 3, deviceID: ""),
        ]
        let names = table.columnNames + ["future", "zz \"quoted\""]
        var values: [String: SyncValue] = [:]
        var stamps = ColumnStamps()
        for name in names {
            let known = table.column(named: name) != nil
            if known ? random.below(6) != 0 : random.below(3) == 0 {
                values[name] = [.null, .int(Int64(random.below(3))), .text(["x", "y"][random.below(2)])][random.below(3)]
            }
            if name != ReservedColumn.columnStamps, known ? random.below(3) != 0 : random.below(8) == 0 {
                stamps[name] = pairs[random.below(pairs.count)]
            }
        }
        if let ms = values[ReservedColumn.updatedMs], random.below(2) == 0 { values[ReservedColumn.updatedMs] = ms == .null ? .int(2) : ms }
        switch random.below(4) {
        case 0: values[ReservedColumn.columnStamps] = nil
        case 1: values[ReservedColumn.columnStamps] = .null
        case 2: values[ReservedColumn.columnStamps] = .text("not stamps")
        default:
            var sent = ColumnStamps()
            for name in names where random.below(2) == 0 { sent[name] = pairs[random.below(pairs.count)] }
            values[ReservedColumn.columnStamps] = .text(sent.json)
        }
        return ByName.Row(values: values, stamps: stamps)
    }

    /// The merge by name, as RowMerge was before it held rows by place.
    struct ByName {
        struct Row: Equatable {
            var values: [String: SyncValue]
            var stamps: ColumnStamps
        }

        let stamped: [String]
        let written: [String]

        init(_ table: TableSchema) {
            stamped = table.stampedColumns.map(\.name)
            written = table.stampedColumns.filter { $0.role == .user }.map(\.name)
        }

        func stamps(of values: [String: SyncValue]) -> ColumnStamps {
            guard case .text(let text)? = values[ReservedColumn.columnStamps], let stamps = ColumnStamps(json: text) else {
                return ColumnStamps(stamping: stamped, with: WriteStamp(pairOf: values))
            }
            return stamps
        }

        func merge(_ incoming: Row, into stored: Row) -> Row? {
            var result = stored
            var took = false
            for column in stamped {
                guard let claim = incoming.stamps[column], stored.stamps[column].map({ claim > $0 }) ?? true else { continue }
                took = true
                result.stamps[column] = claim
                if let value = incoming.values[column] { result.values[column] = value }
            }
            guard took else { return nil }
            for (column, value) in incoming.values where !stamped.contains(column) && result.values[column] == nil {
                result.values[column] = value
            }
            settle(&result)
            return result
        }

        func settle(_ row: inout Row) {
            let newestWrite = written.compactMap { row.stamps[$0] }.max()
            if row.values[ReservedColumn.deletedMs, default: .null] != .null, let newestWrite,
                row.stamps[ReservedColumn.deletedMs].map({ newestWrite > $0 }) ?? true
            {
                row.values[ReservedColumn.deletedMs] = .null
                row.stamps[ReservedColumn.deletedMs] = newestWrite
            }
            if let newest = row.stamps.newest {
                row.values[ReservedColumn.updatedMs] = .int(newest.ms)
                row.values[ReservedColumn.deviceId] = .text(newest.deviceID)
            }
            row.values[ReservedColumn.columnStamps] = .text(row.stamps.json)
        }
    }
}
