import Foundation
import HopeSyncSQLite

extension ColumnSchema {
    /// Reads the column's value from SQLite, typed by the column's kind (SQLite forgets that an
    /// INTEGER was a bool).
    func syncValue(_ row: Row, at index: Int) -> SyncValue {
        if row.isNull(at: index) { return .null }
        switch type {
        case .int: return .int(row.int64(at: index))
        case .bool: return .bool(row.int64(at: index) != 0)
        case .double: return .double(row.double(at: index))
        case .bytes: return .bytes(row.data(at: index) ?? Data())
        case .text, .uuid, .timestamp, .json, .enumeration, .file: return .text(row.text(at: index) ?? "")
        }
    }
}
