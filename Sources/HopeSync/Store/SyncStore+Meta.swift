import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// What the store keeps of itself in `_sync_meta`: its owner, the device id, the clock and how
/// far the device's clock is off the server's.
extension SyncStore {
    /// Records the clock in `_sync_meta`, for when the rows that hold its stamps are deleted.
    func persistClock(_ database: Database) throws {
        try database.execute(
            "INSERT OR REPLACE INTO _sync_meta (key, value) VALUES ('clock', ?)", [.text(String(state.clock.last))]
        )
    }

    /// Raises the recorded clock to `stamp` (before the store is open: an update that drops the
    /// columns or tables holding this device's newest stamps, StoreMigrator).
    static func recordClock(atLeast stamp: Int64, _ database: Database) throws {
        try database.execute(
            """
            INSERT OR REPLACE INTO _sync_meta (key, value)
            SELECT 'clock', CAST(max(?, coalesce((SELECT CAST(value AS INTEGER) FROM _sync_meta WHERE key = 'clock'), 0)) AS TEXT)
            """, [.integer(stamp)])
    }

    /// The server said its clock read `serverMs` just now: the clock's physical part follows it,
    /// and the offset is kept for the next launch (a device may start offline).
    func observeServerTime(_ serverMs: Int64?, _ database: Database) throws {
        guard let serverMs, state.clock.observeServerTime(serverMs, wallMs: state.wallClock()),
            let offset = state.clock.serverOffsetMs
        else { return }
        try database.execute("INSERT OR REPLACE INTO _sync_meta (key, value) VALUES ('server_offset', ?)", [.text(String(offset))])
    }

    /// A store file belongs to the user it was made for: opened for anyone else it would show
    /// them that user's rows and send that user's writes with their credentials.
    static func checkOwner(_ userID: UUID, _ database: Database) throws {
        let owner = try database.fetchOne("SELECT value FROM _sync_meta WHERE key = 'user_id'") { $0.text(at: 0) } ?? nil
        guard let owner else {
            try database.execute("INSERT INTO _sync_meta (key, value) VALUES ('user_id', ?)", [.text(userID.lowercasedString)])
            return
        }
        guard owner == userID.lowercasedString else {
            throw SyncError(
                .configuration,
                """
                This database belongs to another user; it was left unchanged. Open each user's own file \
                (SyncStore(directory:schema:userID:) names it after the user).
                """)
        }
    }

    /// The device id, and the clock: every stamp it made or saw is the updated_ms of a row (a
    /// remote row is applied only when its stamp is the greater), so the clock resumes from the
    /// largest of them, or from `_sync_meta` when rows were cleared or its own stamps went past
    /// the limit; no other write pays to record it. And how far this device's clock was off the
    /// server's when last measured.
    static func loadMeta(
        _ database: Database, deviceID: String?, tables: [TableSchema]
    ) throws -> (String, HybridClock.StoredStamps, Int64?) {
        let stored = try database.fetchOne("SELECT value FROM _sync_meta WHERE key = 'device_id'") { $0.text(at: 0) } ?? nil
        let device = stored ?? deviceID ?? UUID().lowercasedString
        if stored == nil {
            try database.execute("INSERT INTO _sync_meta (key, value) VALUES ('device_id', ?)", [.text(device)])
        }
        let clock = try database.fetchOne("SELECT value FROM _sync_meta WHERE key = 'clock'") { $0.text(at: 0) } ?? nil
        var stamps = HybridClock.StoredStamps(recorded: clock.flatMap { Int64($0) } ?? 0)
        for table in tables where table.column(named: ReservedColumn.updatedMs) != nil {
            _ = try database.fetchOne(
                "SELECT max(updated_ms), max(CASE WHEN device_id = ? THEN updated_ms END) FROM \(quoted(table.name))", [.text(device)]
            ) { row in
                stamps.newest = max(stamps.newest, row.int64(at: 0))
                stamps.newestOwn = max(stamps.newestOwn, row.int64(at: 1))
            }
        }
        let offset = try database.fetchOne("SELECT value FROM _sync_meta WHERE key = 'server_offset'") { $0.text(at: 0) } ?? nil
        return (device, stamps, offset.flatMap { Int64($0) })
    }
}
