import Foundation
import HopeSync
import HopeSyncModel

/// The column lifecycle of the generated SQL (decision 0052), for the randomized fleet: a
/// migration takes the server to a step (its tables with every column it keeps, old names and
/// deprecated columns included), the write trigger keeps each renamed pair equal (one register
/// under column merge: the newer of the two stamps says which the write set), and a finished
/// rename or a removed column is retired: generated, read only (a write naming it is refused
/// with 428C9 before any trigger runs), its stamp its new name's.
extension InMemoryServer {
    /// The server's definition at one step of a project's lifecycle.
    package struct LifecycleStep: Sendable {
        /// Every table the server keeps, each with every column it keeps but the retired ones.
        package var tables: [TableSchema]
        /// The pairs the write trigger keeps equal.
        package var renamed: [RenamedColumn] = []
        /// The server defaults an insert that does not name a column takes (a deprecated
        /// column's, for the rows new builds insert).
        package var defaults: [String: [String: SyncValue]] = [:]
        /// The retired columns: generated from a finished rename's new name, or (nil) its default.
        package var retired: [RetiredColumn] = []

        package init(
            tables: [TableSchema], renamed: [RenamedColumn] = [], defaults: [String: [String: SyncValue]] = [:],
            retired: [RetiredColumn] = []
        ) {
            self.tables = tables
            self.renamed = renamed
            self.defaults = defaults
            self.retired = retired
        }
    }

    /// A column the server keeps under two names: `was` for builds that know only it, `name` for
    /// newer ones; `toNew` and `toOld` are a retype's conversions (the identity for a rename).
    package struct RenamedColumn: Sendable {
        package let table: String
        package let was: String
        package let name: String
        package let toNew: @Sendable (SyncValue) -> SyncValue
        package let toOld: @Sendable (SyncValue) -> SyncValue

        package init(
            _ table: String, _ was: String, to name: String, toNew: @escaping @Sendable (SyncValue) -> SyncValue = { $0 },
            toOld: @escaping @Sendable (SyncValue) -> SyncValue = { $0 }
        ) {
            self.table = table
            self.was = was
            self.name = name
            self.toNew = toNew
            self.toOld = toOld
        }
    }

    /// A retired column: read only, a copy of a finished rename's new name (`copies`, converted
    /// by its `toOld`), or its `value` (a removed column's default).
    package struct RetiredColumn: Sendable {
        package let table: String
        package let name: String
        package let copies: RenamedColumn?
        package let value: SyncValue

        package init(finishing rename: RenamedColumn) {
            table = rename.table
            name = rename.was
            copies = rename
            value = .null
        }

        package init(_ table: String, _ name: String, default value: SyncValue) {
            self.table = table
            self.name = name
            copies = nil
            self.value = value
        }
    }

    /// Runs a step's migration: the tables as the step defines them, each new pair's rows copied
    /// once with the triggers off (the copy moves no `server_seq`: updated devices rename their
    /// own), the retired columns generated.
    package func migrate(to step: LifecycleStep) {
        let known = Set(lifecycle.renamed.map { "\($0.table).\($0.was)" })
        tables = Dictionary(uniqueKeysWithValues: step.tables.map { ($0.name, $0) })
        lifecycle = step
        for pair in step.renamed where !known.contains("\(pair.table).\(pair.was)") {
            for (key, var row) in stores[pair.table, default: [:]] {
                if (row.values[pair.name] ?? .null) == .null, (row.values[pair.was] ?? .null) != .null {
                    row.values[pair.name] = pair.toNew(row.values[pair.was] ?? .null)
                }
                if var stamps = Self.stamps(in: row.values), stamps[pair.was] != nil, stamps[pair.name] == nil {
                    stamps[pair.name] = stamps[pair.was]
                    row.values[ReservedColumn.columnStamps] = .text(stamps.json)
                }
                stores[pair.table]![key] = row
            }
        }
        for table in Set(step.retired.map(\.table)) {
            for (key, var row) in stores[table, default: [:]] {
                generate(&row.values, in: table, stamping: false)
                stores[table]![key] = row
            }
        }
    }

    /// PostgreSQL refuses a write that names a generated column before any trigger runs.
    func checkRetired(_ columns: [String], _ table: String) throws(SyncError) {
        guard let column = lifecycle.retired.first(where: { $0.table == table && columns.contains($0.name) }) else { return }
        throw Self.refusal(400, "428C9", "cannot insert a non-DEFAULT value into column \"\(column.name)\"")
    }

    /// What the before-write trigger does to `values` (the columns a write names) first: the
    /// unnamed columns' defaults on an insert, then each renamed pair made equal (the
    /// `renamed_columns` partial), reading the row as the trigger's NEW: the stored row with
    /// the named columns laid over it.
    func keepingRenamedPairs(_ sent: [String: SyncValue], over old: [String: SyncValue]?, in table: TableSchema) -> [String: SyncValue] {
        var values = sent
        if old == nil {
            for (column, value) in lifecycle.defaults[table.name] ?? [:] where values[column] == nil { values[column] = value }
        }
        for pair in lifecycle.renamed where pair.table == table.name {
            let new = { (column: String) in values[column] ?? old?[column] ?? .null }
            let toNew = { values[pair.name] = pair.toNew(new(pair.was)) }
            let toOld = { values[pair.was] = pair.toOld(new(pair.name)) }
            if table.mergesColumns, var stamps = Self.stamps(in: values[ReservedColumn.columnStamps] == nil ? old ?? [:] : values),
                stamps[pair.was] != stamps[pair.name]
            {
                let wasNewer = stamps[pair.was].map { was in stamps[pair.name].map { was > $0 } ?? true } ?? false
                if wasNewer {
                    toNew()
                    stamps[pair.name] = stamps[pair.was]
                } else {
                    toOld()
                    stamps[pair.was] = stamps[pair.name]
                }
                values[ReservedColumn.columnStamps] = .text(stamps.json)
            } else if old == nil {
                // An insert names one of the two; the other has no default.
                if new(pair.name) == .null { toNew() } else { toOld() }
            } else if new(pair.name) != old?[pair.name] ?? .null {
                toOld()
            } else if new(pair.was) != old?[pair.was] ?? .null {
                toNew()
            }
        }
        return values
    }

    /// The retired columns of `row` as PostgreSQL generates them on every write; the
    /// `column_stamps` partial also gives a copy its new name's stamp and leaves out a removed
    /// column's (the migration itself rewrites no stamps: `stamping` false).
    func generate(_ row: inout [String: SyncValue], in table: String, stamping: Bool) {
        let retired = lifecycle.retired.filter { $0.table == table }
        guard !retired.isEmpty else { return }
        var stamps = stamping ? Self.stamps(in: row) : nil
        for column in retired {
            if let pair = column.copies {
                row[column.name] = pair.toOld(row[pair.name] ?? .null)
                let stamp = stamps?[pair.name]
                stamps?[column.name] = stamp
            } else {
                row[column.name] = column.value
                stamps?[column.name] = nil
            }
        }
        if let stamps { row[ReservedColumn.columnStamps] = .text(stamps.json) }
    }

    private static func stamps(in values: [String: SyncValue]) -> ColumnStamps? {
        guard case .text(let text)? = values[ReservedColumn.columnStamps] else { return nil }
        return ColumnStamps(json: text)
    }
}
