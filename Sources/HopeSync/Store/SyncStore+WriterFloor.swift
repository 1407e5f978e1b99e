import Foundation
import HopeSyncSQLite

/// What the store keeps of the server's writer floor (decision 0051), in `_sync_meta`: the
/// build and the day of the device's last hello, and the build the server refused as too old.
/// A refused build sends no write until the app runs a newer build (or a later hello says the
/// floor came down): no loop of refused pushes, and every unsent write stays where it is.
extension SyncStore {
    private static let helloKey = "hello"
    private static let refusedBuildKey = "refused_build"

    /// Whether the device owes the server a hello: none yet today (`day`, days since 1970)
    /// from this build.
    func helloIsDue(on day: Int64) throws(SyncError) -> Bool {
        try metaValue(Self.helloKey) != "\(schema.schemaVersion) \(day)"
    }

    /// The server answered today's hello: a floor above this build refuses it; one at or
    /// below it lets the build write again.
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

    /// Whether the server refused this build's writes; a newer build starts again.
    func buildIsRefused() throws(SyncError) -> Bool {
        try metaValue(Self.refusedBuildKey) == String(schema.schemaVersion)
    }

    private static func refuseBuild(_ version: Int, _ database: Database) throws {
        try database.execute(
            "INSERT OR REPLACE INTO _sync_meta (key, value) VALUES (?, ?)", [.text(refusedBuildKey), .text(String(version))])
    }

    private func metaValue(_ key: String) throws(SyncError) -> String? {
        try withWriter { database in
            try database.fetchOne("SELECT value FROM _sync_meta WHERE key = ?", [.text(key)]) { $0.text(at: 0) } ?? nil
        }
    }
}
