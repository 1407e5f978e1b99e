import Foundation
import HopeSyncModel

/// Column-by-column last writer wins, as the server's trigger applies it (its SQL twin is in
/// Templates/supabase/triggers.sql.mustache): every user column and `deleted_ms` is a register
/// that takes a write only when the write's stamp beats the stored one, so concurrent edits of
/// different columns both survive and the same column goes to the larger pair, in any arrival
/// order. A write of any column newer than the delete brings a deleted row back. The store (saves
/// and pulls) and the in-memory server use this one implementation.
///
/// A row is held by place, not by name: its values in table order and its stamps in register
/// order, with what names no column (or no register) of this build kept aside by name. Every
/// save and pulled row of a column-merge table goes through here, so no dictionary is made for
/// a row that has only its table's columns and stamps.
package struct RowMerge: Sendable {
    /// A row's values and stamps.
    package struct Row: Equatable, Sendable {
        /// The values in table order; nil where the row has none (a write that does not name
        /// the column).
        package var values: [SyncValue?]
        /// Values of names that are not columns of the table, as they came.
        package var otherValues: [String: SyncValue] = [:]
        /// Each register's stamp, in ``RowMerge/stamped`` order; nil for a register never written.
        package var stamps: [WriteStamp?]
        /// Stamps of names that are not registers of this build (a newer schema's columns):
        /// they ride along unused.
        package var otherStamps: [String: WriteStamp] = [:]

        package init(values: [SyncValue?], stamps: [WriteStamp?]) {
            self.values = values
            self.stamps = stamps
        }
    }

    /// The table's columns, in table order.
    package let columns: [String]
    /// The registers: the user columns and `deleted_ms`, in table order.
    package let stamped: [String]
    /// The user columns' registers (a write of one undoes an older delete).
    package let written: [String]

    private let columnIndex: [String: Int]
    private let registerIndex: [String: Int]
    /// Each register's place in the table's columns.
    package let registerColumns: [Int]
    /// Where `written` are among the registers.
    private let writtenRegisters: [Int]
    /// The registers in the order `column_stamps` lists them (bytewise by name), each with its
    /// name as a JSON string and the colon after it.
    private let stampsOrder: [(register: Int, key: [UInt8])]
    /// Where the reserved columns a merge reads and writes are, found once.
    private let updatedMs: Place
    private let deviceId: Place
    private let deletedMs: Place
    private let columnStampsPlace: Place
    private let deletedRegister: Place

    /// A value's (or a stamp's) place: a column's (a register's), or a name of no column (no
    /// register), held aside.
    private enum Place: Sendable {
        case index(Int)
        case other(String)

        init(_ name: String, in index: [String: Int]) {
            self = index[name].map(Place.index) ?? .other(name)
        }
    }

    package init(_ table: TableSchema) {
        let columns = table.columnNames
        let stamped = table.stampedColumns.map(\.name)
        let written = table.stampedColumns.filter { $0.role == .user }.map(\.name)
        let columnIndex = Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let registerIndex = Dictionary(stamped.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.columns = columns
        self.stamped = stamped
        self.written = written
        self.columnIndex = columnIndex
        self.registerIndex = registerIndex
        registerColumns = stamped.map { columnIndex[$0]! }
        writtenRegisters = written.map { registerIndex[$0]! }
        stampsOrder = stamped.indices.sorted { stamped[$0].precedesBytewise(stamped[$1]) }.map { register in
            var key: [UInt8] = []
            JSONValue.writeString(stamped[register], to: &key)
            key.append(UInt8(ascii: ":"))
            return (register, key)
        }
        updatedMs = Place(ReservedColumn.updatedMs, in: columnIndex)
        deviceId = Place(ReservedColumn.deviceId, in: columnIndex)
        deletedMs = Place(ReservedColumn.deletedMs, in: columnIndex)
        columnStampsPlace = Place(ReservedColumn.columnStamps, in: columnIndex)
        deletedRegister = Place(ReservedColumn.deletedMs, in: registerIndex)
    }

    private func value(at place: Place, in row: Row) -> SyncValue? {
        switch place {
        case .index(let index): row.values[index]
        case .other(let name): row.otherValues[name]
        }
    }

    private func setValue(_ value: SyncValue?, at place: Place, in row: inout Row) {
        switch place {
        case .index(let index): row.values[index] = value
        case .other(let name): row.otherValues[name] = value
        }
    }

    private func stamp(at place: Place, in row: Row) -> WriteStamp? {
        switch place {
        case .index(let register): row.stamps[register]
        case .other(let name): row.otherStamps[name]
        }
    }

    private func setStamp(_ stamp: WriteStamp?, at place: Place, in row: inout Row) {
        switch place {
        case .index(let register): row.stamps[register] = stamp
        case .other(let name): row.otherStamps[name] = stamp
        }
    }

    // MARK: Rows

    /// A row from its values in table order (every column present), stamped by its
    /// `column_stamps` (see ``stamps(of:)-(Row)``).
    package func row(tableValues values: [SyncValue]) -> Row {
        var row = Row(values: values.map(Optional.some), stamps: [])
        setStamps(stamps(of: row), in: &row)
        return row
    }

    /// A row from values by name (absent names are absent values) and its stamps by name.
    package func row(values: [String: SyncValue], stamps: ColumnStamps) -> Row {
        var row = Row(values: Array(repeating: nil, count: columns.count), stamps: [])
        for (name, value) in values { setValue(value, name, in: &row) }
        setStamps(stamps, in: &row)
        return row
    }

    /// The row's values by name (absent values are absent names).
    package func values(of row: Row) -> [String: SyncValue] {
        var result = row.otherValues
        for (index, value) in row.values.enumerated() {
            if let value { result[columns[index]] = value }
        }
        return result
    }

    /// The row's values in table order, an absent one null: as a row is stored.
    package func tableValues(of row: Row) -> [SyncValue] {
        row.values.map { $0 ?? .null }
    }

    /// The value named `name`, whether or not it is a column.
    package func value(_ name: String, in row: Row) -> SyncValue? {
        value(at: Place(name, in: columnIndex), in: row)
    }

    package func setValue(_ value: SyncValue?, _ name: String, in row: inout Row) {
        setValue(value, at: Place(name, in: columnIndex), in: &row)
    }

    /// The values a write of `changes` (by name) sets, in table order: nil where it sets nothing.
    package func changes(_ changes: [String: SyncValue]) -> [SyncValue?] {
        var result = [SyncValue?](repeating: nil, count: columns.count)
        for (name, value) in changes {
            if let index = columnIndex[name] { result[index] = value }
        }
        return result
    }

    // MARK: Stamps

    /// The row's stamps by name, as `column_stamps` holds them.
    package func columnStamps(of row: Row) -> ColumnStamps {
        var result = row.otherStamps
        for (register, stamp) in row.stamps.enumerated() {
            if let stamp { result[stamped[register]] = stamp }
        }
        return ColumnStamps(result)
    }

    /// The stamp named `name`, whether or not it is a register's.
    package func stamp(_ name: String, in row: Row) -> WriteStamp? {
        stamp(at: Place(name, in: registerIndex), in: row)
    }

    package func setStamp(_ stamp: WriteStamp?, _ name: String, in row: inout Row) {
        setStamp(stamp, at: Place(name, in: registerIndex), in: &row)
    }

    /// Replaces the row's stamps with `stamps` (by name).
    package func setStamps(_ stamps: ColumnStamps, in row: inout Row) {
        row.stamps = Array(repeating: nil, count: stamped.count)
        row.otherStamps = [:]
        for (name, stamp) in stamps.stamps { setStamp(stamp, name, in: &row) }
    }

    /// Every register stamped by one write.
    package func stamping(_ row: inout Row, with stamp: WriteStamp) {
        row.stamps = Array(repeating: stamp, count: stamped.count)
        row.otherStamps = [:]
    }

    /// The newest stamp of all the row holds, or nil when none.
    package func newest(_ row: Row) -> WriteStamp? {
        var newest = row.otherStamps.isEmpty ? nil : row.otherStamps.values.max()
        for case let stamp? in row.stamps where newest.map({ stamp > $0 }) ?? true { newest = stamp }
        return newest
    }

    /// The row's own pair: its `updated_ms` and `device_id`.
    package func pair(of row: Row) -> WriteStamp {
        WriteStamp(ms: value(at: updatedMs, in: row)?.int ?? 0, deviceID: value(at: deviceId, in: row)?.text ?? "")
    }

    /// The row's stamps: its `column_stamps`, or, for a row that has none (written by the
    /// whole-row protocol, or before its table had stamps), its pair for every column.
    /// Stamps of columns this build does not know (a newer schema's) ride along unused: they
    /// never win on the server, since they came from it. An upgrade that adds those columns
    /// drops them (StoreMigrator), so the re-pull brings the values they stamp.
    package func stamps(of row: Row) -> ColumnStamps {
        guard case .text(let text)? = value(at: columnStampsPlace, in: row), let stamps = ColumnStamps(json: text) else {
            return ColumnStamps(stamping: stamped, with: pair(of: row))
        }
        return stamps
    }

    /// ``stamps(of:)-(Row)`` of values by name.
    package func stamps(of values: [String: SyncValue]) -> ColumnStamps {
        guard case .text(let text)? = values[ReservedColumn.columnStamps], let stamps = ColumnStamps(json: text) else {
            return wholeRowStamps(values)
        }
        return stamps
    }

    package func wholeRowStamps(_ values: [String: SyncValue]) -> ColumnStamps {
        ColumnStamps(stamping: stamped, with: WriteStamp(pairOf: values))
    }

    // MARK: The merge

    /// `incoming` laid over `stored`, register by register; nil when no register took anything
    /// (a repeat, or a write older than every column it claims). A column `incoming` has no
    /// value for keeps its stored value (as an upsert that does not name it).
    package func merge(_ incoming: Row, into stored: Row) -> Row? {
        var result = stored
        var took = false
        for (register, column) in registerColumns.enumerated() {
            guard let claim = incoming.stamps[register], stored.stamps[register].map({ claim > $0 }) ?? true else { continue }
            took = true
            result.stamps[register] = claim
            if let value = incoming.values[column] { result.values[column] = value }
        }
        guard took else { return nil }
        for (column, value) in incoming.values.enumerated() where result.values[column] == nil && registerIndex[columns[column]] == nil {
            result.values[column] = value
        }
        for (name, value) in incoming.otherValues where result.otherValues[name] == nil {
            result.otherValues[name] = value
        }
        settle(&result)
        return result
    }

    /// What every merged row satisfies: a delete older than some column's write is undone, and
    /// the row's (updated_ms, device_id) and `column_stamps` say its newest write.
    package func settle(_ row: inout Row) {
        var newestWrite: WriteStamp?
        for register in writtenRegisters {
            if let stamp = row.stamps[register], newestWrite.map({ stamp > $0 }) ?? true { newestWrite = stamp }
        }
        if (value(at: deletedMs, in: row) ?? .null) != .null, let newestWrite,
            stamp(at: deletedRegister, in: row).map({ newestWrite > $0 }) ?? true
        {
            setValue(.null, at: deletedMs, in: &row)
            setStamp(newestWrite, at: deletedRegister, in: &row)
        }
        if let newest = newest(row) {
            setValue(.int(newest.ms), at: updatedMs, in: &row)
            setValue(.text(newest.deviceID), at: deviceId, in: &row)
        }
        setValue(.text(stampsJSON(of: row)), at: columnStampsPlace, in: &row)
    }

    /// `column_stamps` of the row: ``ColumnStamps/json``, written from the registers' places
    /// (their order and names found once) unless the row holds other stamps too.
    private func stampsJSON(of row: Row) -> String {
        guard row.otherStamps.isEmpty else { return columnStamps(of: row).json }
        var writer = ColumnStamps.JSONWriter(capacity: stamped.count * 64)
        for (register, key) in stampsOrder {
            if let stamp = row.stamps[register] { writer.append(key: key, stamp) }
        }
        return writer.finish()
    }
}
