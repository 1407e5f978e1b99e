import Foundation
import HopeSyncSQLite

extension TableSQL {
    /// A row read with every column in table order (``select``), as sync values.
    func values(of row: Row) -> [SyncValue] {
        table.columns.enumerated().map { $1.syncValue(row, at: $0) }
    }
}
