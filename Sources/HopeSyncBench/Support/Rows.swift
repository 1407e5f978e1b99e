import Foundation
import HopeSync
import HopeSyncModel

extension TableSchema {
    /// The columns a device sends, in table order: all but server_seq (the server's) and the
    /// roles left out.
    func sentColumns(leavingOut roles: Set<ColumnRole> = []) -> [String] {
        columns.filter { $0.role != .serverSeq && !roles.contains($0.role) }.map(\.name)
    }

    /// A row of `columns` (by default those a device sends): `values` where given; otherwise the
    /// key, the owner, the pair of `stamp` with every register stamped by it (on a column-merge
    /// table), and null.
    func row(
        id: String, owner: UUID, stamp: WriteStamp? = nil, _ values: [String: SyncValue] = [:], columns names: [String]? = nil
    ) -> ColumnValues {
        let stamps = stamp.map { stamp in ColumnStamps(Dictionary(uniqueKeysWithValues: stampedColumns.map { ($0.name, stamp) })) }
        let names = names ?? sentColumns()
        return ColumnValues(
            columns: names,
            values: names.map { name in
                if let value = values[name] { return value }
                switch column(named: name)?.role {
                case .id: return .text(id)
                case .owner: return .text(owner.uuidString.lowercased())
                case .updatedMs: return stamp.map { .int($0.ms) } ?? .null
                case .deviceId: return stamp.map { .text($0.deviceID) } ?? .null
                case .columnStamps: return stamps.map { .text($0.json) } ?? .null
                default: return .null
                }
            })
    }
}
