import Foundation
import HopeSchema
import HopeSync

extension FleetBenchmark {
    /// A device's rejected and conflicted lists as the run left them.
    struct DeviceLists: Sendable {
        let rejected: [RejectedMutation]
        let conflicted: [ConflictedMutation]
    }

    /// Every device's lists, read before anything is settled.
    static func readLists(_ devices: [Device]) async throws -> [String: DeviceLists] {
        var lists: [String: DeviceLists] = [:]
        for device in devices {
            lists[device.name] = try await device.store.read { reader in
                DeviceLists(rejected: try reader.rejectedMutations(), conflicted: try reader.conflictedMutations())
            }
        }
        return lists
    }

    /// Each refused row upsert on its device's rejected list: "device table id".
    static func refusedUpserts(_ lists: [String: DeviceLists]) -> Set<String> {
        var refused: Set<String> = []
        for (device, entries) in lists {
            for entry in entries.rejected where entry.operation == .upsert {
                refused.insert("\(device) \(entry.table) \(entry.rowID.uuidString.lowercased())")
            }
        }
        return refused
    }

    /// The lists' counts, each message's, and a few examples of refusals.
    static func note(_ lists: [String: DeviceLists], into check: inout Check) {
        for (device, entries) in lists.sorted(by: { $0.key < $1.key }) {
            check.left.rejected += entries.rejected.count
            check.left.conflicted += entries.conflicted.count
            for write in entries.rejected { check.listMessages["rejected \(write.table): \(write.message)", default: 0] += 1 }
            for write in entries.conflicted { check.listMessages["conflicted \(write.table): \(write.message)", default: 0] += 1 }
            for write in entries.rejected where check.rejected.count < 5 {
                check.rejected.append("\(device) \(write.table) \(write.rowID): \(String(describing: write.serverError))")
            }
        }
    }

    /// A parked write waits for its user, its row showing the server's values at the version the
    /// device saw (so that a later edit still meets the change: the runtime's design), so that
    /// device cannot hold exactly the server's rows until it is settled. First each parked row is
    /// checked to differ from the server's in that version alone (`differing` names the devices
    /// where it does not); then it is settled as a user would, dismissed (the server's row
    /// stands), and its device makes one pass (which fetches the row again) before the devices
    /// are compared with the server.
    static func dismissParked(
        _ devices: [Device], _ lists: [String: DeviceLists], serverRows: [UUID: [String: [String: ColumnValues]]]
    ) async throws -> (writes: Int, devices: Int, differing: Set<String>) {
        var settled = (writes: 0, devices: 0, differing: Set<String>())
        for device in devices {
            let parked = lists[device.name]?.conflicted ?? []
            guard !parked.isEmpty else { continue }
            // Each table the parked rows are in, read once.
            var localRows: [String: [String: ColumnValues]] = [:]
            for name in Set(parked.map(\.table)) {
                let rows = try await device.store.read { reader in try reader.rowValues(of: name) }
                localRows[name] = Dictionary(rows.map { (key($0), $0) }) { first, _ in first }
            }
            for entry in parked {
                guard let table = GeneratedSchema.tables.first(where: { $0.name == entry.table }) else { continue }
                let id = entry.rowID.uuidString.lowercased()
                let local = localRows[table.name]?[id]
                let server = serverRows[device.user]?[table.name]?[id]
                let columns = table.columnNames.filter { $0 != table.conflict.versionColumn }
                if local == nil || columns.contains(where: { local?[$0] != server?[$0] }) { settled.differing.insert(device.name) }
                try device.store.dismissConflictedMutation(id: entry.id)
            }
            _ = try await device.engine.syncNow()
            settled.writes += parked.count
            settled.devices += 1
        }
        return settled
    }
}
