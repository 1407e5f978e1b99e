import Foundation
import HopeSync
import HopeSyncTesting
import HopeSyncUpgradeSchemaV1
import HopeSyncUpgradeSchemaV2

/// The two builds of the upgrade tests' app: v2 adds `habits.emoji` and `notes.pinned`. As
/// here, each pulls table by table; ``AppSchema/pulling(through:)`` with ``pullFunction`` makes
/// the same build pull through the server's pull function.
enum MixedBuilds {
    static let v1 = AppSchema(
        tables: HopeSyncUpgradeSchemaV1.GeneratedSchema.tables, migrations: HopeSyncUpgradeSchemaV1.GeneratedSchema.migrations)
    static let v2 = AppSchema(
        tables: HopeSyncUpgradeSchemaV2.GeneratedSchema.tables, migrations: HopeSyncUpgradeSchemaV2.GeneratedSchema.migrations)
    /// The pull function both builds' generated lists name (`sync_pull`).
    static let pullFunction = HopeSyncUpgradeSchemaV2.GeneratedSchema.app.pullFunction

    /// A server already migrated to v2.
    static func server(clock: (@Sendable () -> Int64)? = nil) -> InMemoryServer { InMemoryServer(tables: v2.tables, clock: clock) }

    /// What differs between the device's rows and the server's, in the columns the device's
    /// build knows (a v1 device has no emoji to compare). The rows `showingVersionSeen` names
    /// ("table id") hold a write the device parked (on the conflicted list, or refused for its
    /// version): they show the version the device saw, so that a later write still meets the
    /// move, and are compared without it.
    static func differences(
        _ device: TestDevice, _ server: InMemoryServer, showingVersionSeen: Set<String> = []
    ) async throws -> [String] {
        var result: [String] = []
        let owner = SyncValue.text(device.user.uuidString.lowercased())
        for table in device.schema.tables {
            let local = try localRows(device, table)
            let remote = await server.rows(of: table.name).filter { $0.value["user_id"] == owner }
            let known = Set(table.stampedColumns.map(\.name))
            for key in Set(local.keys).union(remote.keys) {
                let unseen = showingVersionSeen.contains("\(table.name) \(key)") ? table.conflict.versionColumn : nil
                let compared = { (row: ColumnValues) in
                    table.columnNames.map { $0 == unseen ? .null : knownStamps(row[$0] ?? .null, $0, known) }
                }
                let (mine, theirs) = (local[key].map(compared), remote[key].map(compared))
                if mine != theirs {
                    result.append(
                        "\(device.deviceID) \(table.name) \(key): local \(String(describing: mine)) server \(String(describing: theirs))")
                }
            }
        }
        return result
    }

    /// column_stamps as a build holds them: only the columns it knows.
    private static func knownStamps(_ value: SyncValue, _ column: String, _ known: Set<String>) -> SyncValue {
        guard column == "column_stamps", case .text(let text) = value, let stamps = ColumnStamps(json: text) else { return value }
        return .text(ColumnStamps(stamps.stamps.filter { known.contains($0.key) }).json)
    }
}

extension AppSchema {
    /// The same build pulling through `function` (the server's pull function), or table by
    /// table (nil).
    func pulling(through function: String?) -> AppSchema {
        AppSchema(tables: tables, migrations: migrations, pullFunction: function)
    }
}

extension TestDevice {
    /// The app updated to the v2 build: the same file opened with v2's schema, pulling as it did.
    func upgradedToV2() throws -> TestDevice {
        try reopened(with: MixedBuilds.v2.pulling(through: schema.pullFunction))
    }

    /// The app quits and launches again as another build: the same file opened with `schema`.
    func reopened(with schema: AppSchema) throws -> TestDevice {
        store.close()
        return try TestDevice(
            deviceID, user: user, transport: transport, schema: schema, clock: clock, signIn: signIn,
            configuration: configuration, pokes: pokes, path: path
        )
    }
}
