import Foundation
import HopeSyncSQLite

/// What the store keeps of the server's writer floor (decision 0051), in `_sync_meta`: the
/// build and the day of the device's last hello, and the build the server refused as too old.
/// A refused build sends no write until the app runs a newer build (or a later hello says the
/// floor came down): no loop of refused pushes, and every unsent write stays where it is.
extension SyncStore {
    private static let helloKey = "hello"
    private static let refusedBuildKey = "refused_build"

    /// Whether the device owes the server a hello (none yet today, `day` being days since 1970,
    /// from this build), and whether the server refused this build's writes (a newer build
    /// starts again): one read, on every pass.
    func writerFloorState(on day: Int64) throws(SyncError) -> (helloIsDue: Bool, isRefused: Bool) {
        try withWriter { database in
            var values: [String: String] = [:]
            for (key, value) in try database.fetchAll(
                "SELECT key, value FROM _sync_meta WHERE key IN (?, ?)", [.text(Self.helloKey), .text(Self.refusedBuildKey)],
                { ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "") })
            {
                values[key] = value
            }
            return (values[Self.helloKey] != "\(schema.schemaVersion) \(day)", values[Self.refusedBuildKey] == String(schema.schemaVersion))
        }
    }

    /// The server answered today's hello (nil: it said nothing of a floor): a floor above this
    /// build refuses it, one at or below it lets the build write again.
    func recordHello(_ hello: ServerHello?, on day: Int64) throws(SyncError) {
        try withWriter { database in
            try database.execute(
                "INSERT OR REPLACE INTO _sync_meta (key, value) VALUES (?, ?)",
                [.text(Self.helloKey), .text("\(schema.schemaVersion) \(day)")])
            if hello?.letsWrite(schemaVersion: schema.schemaVersion) == false {
                try Self.refuseBuild(schema.schemaVersion, database)
            } else if hello != nil {
                try database.execute("DELETE FROM _sync_meta WHERE key = ?", [.text(Self.refusedBuildKey)])
            }
        }
    }

    /// The server refused a write of this build as older than its floor (PT426).
    func recordBuildRefused() throws(SyncError) {
        try withWriter { database in try Self.refuseBuild(schema.schemaVersion, database) }
    }

    private static func refuseBuild(_ version: Int, _ database: Database) throws {
        try database.execute(
            "INSERT OR REPLACE INTO _sync_meta (key, value) VALUES (?, ?)", [.text(refusedBuildKey), .text(String(version))])
    }
}
