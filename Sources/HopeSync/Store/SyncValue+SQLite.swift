import Foundation
import HopeSyncSQLite

extension SyncValue {
    /// How SQLite stores the value: bools as 0/1, everything textual as TEXT, bytes as BLOB.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .int(let int): .integer(int)
        case .double(let double): .real(double)
        case .bool(let bool): .integer(bool ? 1 : 0)
        case .text(let text): .text(text)
        case .bytes(let data): .blob(data)
        }
    }
}
