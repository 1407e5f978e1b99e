import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel

extension TableSchema {
    /// A row as the runtime pushes it into this table: every column but those only the server
    /// writes, in table order, taken from `values` (null where it has none); under column merge,
    /// `stamps` are its column_stamps and their newest its pair.
    func pushed(_ values: [String: SyncValue], stamps: ColumnStamps? = nil) -> ColumnValues {
        var row = values
        if let stamps, let pair = stamps.newest {
            row[ReservedColumn.updatedMs] = .int(pair.ms)
            row[ReservedColumn.deviceId] = .text(pair.deviceID)
            row[ReservedColumn.columnStamps] = .text(stamps.json)
        }
        let sent = columns.filter { !$0.role.isWrittenByServerOnly }.map(\.name)
        return ColumnValues(columns: sent, values: sent.map { row[$0] ?? .null })
    }
}
