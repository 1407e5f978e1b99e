import Foundation

/// Column-by-column last writer wins, as the server's trigger applies it (its SQL twin is in
/// Templates/supabase/triggers.sql.mustache): every user column and `deleted_ms` is a register
/// that takes a write only when the write's stamp beats the stored one, so concurrent edits of
/// different columns both survive and the same column goes to the larger pair, in any arrival
/// order. A write of any column newer than the delete brings a deleted row back. The store (saves
/// and pulls) and the in-memory server use this one implementation.
package struct RowMerge: Sendable {
    /// A row's values by column name, with its stamps.
    package struct Row: Equatable {
        package var values: [String: SyncValue]
        package var stamps: ColumnStamps

        package init(values: [String: SyncValue], stamps: ColumnStamps) {
            self.values = values
            self.stamps = stamps
        }
    }

    package let stamped: [String]
    package let written: [String]

    package init(_ table: TableSchema) {
        stamped = table.stampedColumns.map(\.name)
        written = table.stampedColumns.filter { $0.role == .user }.map(\.name)
    }

    /// The row's stamps: its `column_stamps`, or, for a row that has none (written by the
    /// whole-row protocol, or before its table had stamps), its pair for every column.
    /// Stamps of columns this build does not know (a newer schema's) ride along unused: they
    /// never win on the server, since they came from it. An upgrade that adds those columns
    /// drops them (StoreMigrator), so the re-pull brings the values they stamp.
    package func stamps(of values: [String: SyncValue]) -> ColumnStamps {
        guard case .text(let text)? = values[ReservedColumn.columnStamps], let stamps = ColumnStamps(json: text) else {
            return wholeRowStamps(values)
        }
        return stamps
    }

    package func wholeRowStamps(_ values: [String: SyncValue]) -> ColumnStamps {
        ColumnStamps(stamping: stamped, with: WriteStamp(pairOf: values))
    }

    /// `incoming` laid over `stored`, register by register; nil when no register took anything
    /// (a repeat, or a write older than every column it claims). A column `incoming` has no
    /// value for keeps its stored value (as an upsert that does not name it).
    package func merge(_ incoming: Row, into stored: Row) -> Row? {
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

    /// What every merged row satisfies: a delete older than some column's write is undone, and
    /// the row's (updated_ms, device_id) and `column_stamps` say its newest write.
    package func settle(_ row: inout Row) {
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
