import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncSchema
import HopeSyncTestSupport

/// A seeded history: in each round every device, having pulled, edits random columns of random
/// rows offline (its clock strictly increasing), then the devices push in a random order,
/// through the libpq transport as devices would. An edit is lost when its column's final value
/// on the server is not the one written with that column's largest pair.
struct LostEdits {
    struct Edit {
        var round: Int
        var device: Int
        var row: Int
        var column: String
        var value: SyncValue
        var stamp: WriteStamp
    }

    /// A device's copy of a row: values by column, each column's stamp (column merge).
    struct Copy {
        var values: [String: SyncValue]
        var stamps: ColumnStamps
        var dirty: Bool

        init(_ row: ColumnValues, dirty: Bool) {
            values = Dictionary(uniqueKeysWithValues: zip(row.columns, row.values))
            stamps = row[ReservedColumn.columnStamps]?.text.flatMap(ColumnStamps.init(json:)) ?? ColumnStamps()
            self.dirty = dirty
        }

        /// An edit made offline: its value, its column's stamp and the row's pair.
        mutating func apply(_ edit: Edit) {
            values[edit.column] = edit.value
            stamps[edit.column] = edit.stamp
            values[ReservedColumn.updatedMs] = .int(edit.stamp.ms)
            values[ReservedColumn.deviceId] = .text(edit.stamp.deviceID)
            dirty = true
        }
    }

    let rows = 100
    let devices = 5
    let rounds = 8
    let editsPerRound = 25
    let seed: UInt64
    let ids: [String]
    let edits: [Edit]
    let pushOrders: [[Int]]

    init(seed: UInt64) {
        self.seed = seed
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
                    let column = ColumnMerge.userColumns.randomElement(using: &random)!
                    let index = edits.count
                    let value: SyncValue = column == "position" ? .double(Double(index)) : .text("e\(index)")
                    let stamp = WriteStamp(ms: Int64(ms), deviceID: "device-\(device)")
                    edits.append(Edit(round: round, device: device, row: row, column: column, value: value, stamp: stamp))
                }
            }
            orders.append((0..<devices).shuffled(using: &random))
        }
        self.edits = edits
        pushOrders = orders
    }

    func run(byColumn: Table, byRow: Table, url: String) async throws -> [Figure] {
        print(
            """
            Lost edits: \(devices) devices edit random columns of \(rows) shared rows offline, then push in a random order; \
            \(rounds) rounds (each device pulls first), \(edits.count) column edits, seed \(seed).
            An edit is lost when the server's final value of its column is not the one written with that column's largest pair.

            merge      edited columns  lost  kept
            """)
        let transport = PostgresTransport(url: url)
        var figures: [Figure] = []
        for (mode, table) in [(MergeMode.column, byColumn), (.row, byRow)] {
            let (registers, lost) = lost(try await replay(into: TableSchema(table), through: transport))
            print(tableRow(["\(mode.rawValue)", "\(registers)", "\(lost)", "\(registers - lost)"], widths: [11, 16, 6]))
            figures.append(Figure("merge.lost_edits_\(mode.rawValue)", Double(lost), aim: mode == .column ? 0 : nil, digits: 0))
        }
        return figures
    }

    /// Plays the history against `table` and returns its final rows (id -> column -> value).
    func replay(into table: TableSchema, through transport: PostgresTransport) async throws -> [String: [String: SyncValue]] {
        let user = Credentials(userID: UUID(), accessToken: "")
        let columns = table.sentColumns(leavingOut: [.deletedMs])
        let initial = ids.map { id in
            Copy(
                table.row(
                    id: id, owner: user.userID, stamp: WriteStamp(ms: 1, deviceID: "seed"),
                    ["title": .text("initial"), "color": .text("#8E8E93"), "position": .double(0)], columns: columns),
                dirty: true)
        }
        try await push(initial, into: table, columns: columns, as: user, through: transport)
        for round in 0..<rounds {
            // Every device pulls, then edits offline.
            let pulled = try await pull(table, as: user, through: transport)
            var copies = Array(repeating: pulled, count: devices)
            for edit in edits where edit.round == round { copies[edit.device][ids[edit.row]]!.apply(edit) }
            for device in pushOrders[round] {
                try await push(Array(copies[device].values), into: table, columns: columns, as: user, through: transport)
            }
        }
        return try await pull(table, as: user, through: transport).mapValues(\.values)
    }

    func pull(_ table: TableSchema, as user: Credentials, through transport: PostgresTransport) async throws -> [String: Copy] {
        let page = try await transport.pull(table, after: 0, limit: SyncConfiguration.serverRowCap, as: user)
        guard page.receivedCount < SyncConfiguration.serverRowCap else { throw BenchmarkError("more rows than one page") }
        var copies: [String: Copy] = [:]
        for row in page.rows { copies[row[ReservedColumn.id]!.text!] = Copy(row, dirty: false) }
        return copies
    }

    /// One request with the device's dirty rows: whole rows, with their stamps under column merge.
    func push(
        _ copies: [Copy], into table: TableSchema, columns: [String], as user: Credentials, through transport: PostgresTransport
    ) async throws {
        let rows = copies.filter(\.dirty).map { copy in
            var values = copy.values
            if table.mergesColumns { values[ReservedColumn.columnStamps] = .text(copy.stamps.json) }
            return ColumnValues(columns: columns, values: columns.map { values[$0] ?? .null })
        }
        guard !rows.isEmpty else { return }
        try await transport.upsert(rows, into: table, as: user)
    }

    /// The registers (row, column) some edit wrote, and how many of them do not hold the value
    /// of their largest-pair edit.
    func lost(_ final: [String: [String: SyncValue]]) -> (registers: Int, lost: Int) {
        var winners: [String: Edit] = [:]
        for edit in edits {
            let key = "\(edit.row)/\(edit.column)"
            if let current = winners[key], !(current.stamp < edit.stamp) { continue }
            winners[key] = edit
        }
        let lost = winners.values.filter { final[ids[$0.row]]?[$0.column] != $0.value }.count
        return (winners.count, lost)
    }
}
