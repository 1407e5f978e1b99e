import Foundation
import HopeSync
import HopeSyncTesting

/// Every table of `device` holds exactly the server's rows for its user, column for column.
func differences(_ device: TestDevice, _ server: InMemoryServer) async throws -> [String] {
    var result: [String] = []
    let owner = SyncValue.text(device.user.uuidString.lowercased())
    for table in device.schema.tables {
        let local = try localRows(device, table)
        let remote = await server.rows(of: table.name).filter { $0.value["user_id"] == owner }
        for key in Set(local.keys).union(remote.keys) where local[key] != remote[key] {
            result.append(
                "\(device.deviceID) \(table.name) \(key): local \(String(describing: local[key])) server \(String(describing: remote[key]))"
            )
        }
    }
    return result
}
