import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncSQLite

/// Session rows as the server holds them after one write each, made up for the benchmarks that
/// serve pages without a server. Row `index` has server_seq `index + 1`; one user, 20 activities.
/// Cheap to make (raw SQLite's timed loop makes its rows as it goes, as it always has).
struct SessionRows {
    enum Keys {
        /// `00000000-0000-4000-8000-<index in hex>`: rows arrive in key order.
        case sequential
        /// A new random UUID a row: every page lands all over the key index.
        case random
    }

    static let user = UUID(uuidString: "6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7")!
    static let base: Int64 = 1_800_000_000_000
    static let device = "server-device"
    static let sources = ["desktop", "phone", "watch"]

    let keys: Keys
    private let activityIDs = (0..<20).map { _ in UUID() }
    private let activities: [String]
    private let owner = SessionRows.user.uuidString.lowercased()
    /// One names array for every row, as a decoded page shares one.
    private let names = Session.table.columnNames
    /// The registers, in the order column_stamps' canonical text keeps them.
    private let stamped = Session.table.stampedColumns.map(\.name).sorted()

    init(keys: Keys) {
        self.keys = keys
        activities = activityIDs.map { $0.uuidString.lowercased() }
    }

    /// Row `index`, every column in table order.
    func row(_ index: Int) -> ColumnValues {
        let ms = Self.base + Int64(index)
        let started = Self.base + Int64(index) * 60_000
        let stamp = WriteStamp(ms: ms, deviceID: Self.device).text
        let values = Session.table.columns.map { column -> SyncValue in
            switch (column.role, column.name) {
            case (.id, _): .text(key(index))
            case (.owner, _): .text(owner)
            case (.updatedMs, _): .int(ms)
            case (.deviceId, _): .text(Self.device)
            case (.columnStamps, _): .text("{" + stamped.map { "\"\($0)\":\"\(stamp)\"" }.joined(separator: ",") + "}")
            case (.serverSeq, _): .int(Int64(index + 1))
            case (.user, "activity_id"): .text(activities[index % 20])
            case (.user, "started_ms"): .int(started)
            case (.user, "ended_ms"): .int(started + 30_000)
            case (.user, "note"): index % 3 == 0 ? .text("note \(index)") : .null
            case (.user, "source"): .text(Self.sources[index % 3])
            default: .null
            }
        }
        return ColumnValues(columns: names, values: values)
    }

    /// Row `index` as the app holds it: what a local write saves, the same values raw SQLite
    /// writes for ``row(_:)``, made as cheaply (sequential keys only).
    func session(_ index: Int) -> Session {
        let started = Self.base + Int64(index) * 60_000
        let i = UInt64(index)
        let id = UUID(
            uuid: (
                0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, UInt8(truncatingIfNeeded: i >> 40), UInt8(truncatingIfNeeded: i >> 32),
                UInt8(truncatingIfNeeded: i >> 24), UInt8(truncatingIfNeeded: i >> 16), UInt8(truncatingIfNeeded: i >> 8),
                UInt8(truncatingIfNeeded: i)
            ))
        return Session(
            id: id, activityId: activityIDs[index % 20], startedMs: started, endedMs: started + 30_000,
            note: index % 3 == 0 ? "note \(index)" : nil, source: Session.Source(rawValue: Self.sources[index % 3]) ?? .desktop)
    }

    private func key(_ index: Int) -> String {
        switch keys {
        case .sequential:
            let hex = String(index, radix: 16)
            return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
        case .random: return UUID().uuidString.lowercased()
        }
    }

    /// Rows `range` as one pulled page.
    func page(_ range: Range<Int>) -> PulledPage {
        let rows = range.map(row)
        return PulledPage(rows: rows, receivedCount: rows.count, lastServerSeq: Int64(range.upperBound))
    }
}

/// The baseline the runtime's local writes are held against: plain SQLite on a file with the
/// app's migrations, its statement written by hand because it is the baseline.
enum RawSQLite {
    static func open(_ path: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path)
        try queue.inDatabase { db in for migration in GeneratedSchema.migrations { try db.execute(migration.sql) } }
        return queue
    }

    /// A session row stored as pulled (clean), its values in table order.
    static let upsertSession: String = {
        let columns = Session.table.columnNames
        return """
            INSERT INTO sessions (\(columns.joined(separator: ", ")), \(DirtyState.column)) \
            VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")), \(DirtyState.clean.rawValue)) \
            ON CONFLICT (id) DO UPDATE SET \(columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            """
    }()

    /// Upserts `rows` in one transaction with one prepared statement into a new file in
    /// `directory`; the seconds it took.
    static func upsertSessions(_ rows: [[DatabaseValue]], in directory: URL) throws -> Double {
        let path = Scratch.databasePath("bench-raw", in: directory)
        defer { Scratch.removeDatabase(path) }
        let queue = try open(path)
        defer { queue.close() }
        return try Measure.seconds {
            try queue.write { db in
                let statement = try db.cachedStatement(upsertSession)
                for row in rows { try statement.execute(row) }
            }
        }
    }

    /// A row's values as SQLite stores them.
    static func values(_ row: ColumnValues) -> [DatabaseValue] {
        row.values.map { value in
            switch value {
            case .null: .null
            case .int(let number): .integer(number)
            case .double(let number): .real(number)
            case .bool(let flag): .integer(flag ? 1 : 0)
            case .text(let text): .text(text)
            case .bytes(let data): .blob(data)
            }
        }
    }
}
