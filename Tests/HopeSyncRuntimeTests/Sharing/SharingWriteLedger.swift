import Foundation
import HopeSyncModel

@_spi(Transport) @testable import HopeSync

/// What SharingRandomTests' devices wrote, what the server held after each step, and what each
/// device's conflicted and rejected lists showed: so that the oracle can tell that no write was
/// lost. Every write gives its column a value no other write gives (a task's title, a list's
/// name, both named after the step), so a value on the server names the write that put it there.
struct SharingWriteLedger {
    /// One write a device's store took (a write refused at the save is not one).
    struct Write {
        let device: String
        let table: String
        let row: String
        /// The title or name written; nil for a delete.
        let value: String?
        let step: Int
    }

    /// The column each tracked table's writes give their unique value.
    static let valueColumn = ["tasks": "title", "task_lists": "name"]

    private(set) var writes: [Write] = []
    /// Per "table/row", each value the server held, in the order it held them.
    private var history: [String: [String]] = [:]
    /// "device table row value" for each list entry a device showed ("device table row *" for a
    /// refused new row), and "device table row" for each entry of a delete (or of a body that
    /// deletes).
    private var listed: Set<String> = []

    mutating func record(_ write: Write?, verbose: Bool) {
        guard let write else { return }
        if verbose { print("  \(write.table) \(write.row) \(write.value ?? "deleted")") }
        writes.append(write)
    }

    /// After a step: the server's values and every device's lists as they are now.
    mutating func observe(_ server: [String: [String: ColumnValues]], _ devices: [(id: String, store: SyncStore)]) throws {
        for (table, column) in Self.valueColumn {
            for (row, values) in server[table] ?? [:] {
                guard let value = values[column]?.text, history["\(table)/\(row)"]?.last != value else { continue }
                history["\(table)/\(row)", default: []].append(value)
            }
        }
        for (device, store) in devices {
            let conflicted = try store.conflictedMutations().map { ($0.table, $0.rowID, $0.operation, $0.body) }
            let rejected = try store.rejectedMutations().map { ($0.table, $0.rowID, $0.operation, $0.body) }
            for (table, rowID, operation, body) in conflicted + rejected {
                let row = rowID.lowercasedString
                if operation == .upsert {
                    // A refused new row keeps its values in the table, not in the entry: the
                    // entry stands for every write of the row, a delete included.
                    listed.insert("\(device) \(table) \(row) *")
                    listed.insert("\(device) \(table) \(row)")
                } else if let column = Self.valueColumn[table], let value = body?[column]?.text {
                    listed.insert("\(device) \(table) \(row) \(value)")
                }
                if operation == .delete || (body?[ReservedColumn.deletedMs] ?? .null) != .null {
                    listed.insert("\(device) \(table) \(row)")
                }
            }
        }
    }

    /// Every write is accounted for: the server took it (its value is in the row's history), it
    /// is on its device's conflicted or rejected list, a later write of the same device replaced
    /// it before it was sent, or the row is deleted on the server (an edit that meets a delete
    /// gives way by default). A delete: the server's row is deleted, or the delete was listed. And no row's history holds a value twice apart: a value the server replaced
    /// never comes back (a write taken again after a newer one would be a lost update).
    func problems(finalServer: [String: [String: ColumnValues]]) -> [String] {
        var result: [String] = []
        for (index, write) in writes.enumerated() {
            let key = "\(write.table)/\(write.row)"
            let replacedLater = writes[(index + 1)...].contains {
                $0.device == write.device && $0.table == write.table && $0.row == write.row && ($0.value != nil) == (write.value != nil)
            }
            let deleted = (finalServer[write.table]?[write.row]?[ReservedColumn.deletedMs] ?? .null) != .null
            if let value = write.value {
                // An edit that meets a delete gives way to it (ConflictResolution.default).
                if deleted { continue }
                let entry = "\(write.device) \(write.table) \(write.row)"
                if history[key]?.contains(value) == true || listed.contains("\(entry) \(value)") || listed.contains("\(entry) *")
                    || replacedLater
                {
                    continue
                }
                result.append(
                    "lost: \(write.device) wrote \(write.table) \(write.row) \"\(value)\" at step \(write.step); the server held \(history[key] ?? [])"
                )
            } else {
                if deleted || listed.contains("\(write.device) \(write.table) \(write.row)") || replacedLater { continue }
                result.append("lost: \(write.device) deleted \(write.table) \(write.row) at step \(write.step)")
            }
        }
        for (key, values) in history where Set(values).count != values.count {
            result.append("\(key): a replaced value came back: \(values)")
        }
        return result
    }
}
