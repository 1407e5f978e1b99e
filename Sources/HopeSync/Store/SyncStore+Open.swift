import Foundation

/// Opening a store: its database, with the queue for guarded writes that the conflicts layer
/// supplies (`GuardedWriteQueueSupplier`).
extension SyncStore {
    /// Opens (creating and migrating as needed) the database at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file; created with its folder's other files (`-wal`, `-shm`) if missing.
    ///   - schema: the generated tables and local migrations (`GeneratedSchema.app`).
    ///   - userID: the user whose rows the file holds; a file made for another user is refused.
    ///   - deviceID: fixed device id (tests); by default a random one is made on first open.
    ///   - wallClock: milliseconds since 1970; the hybrid clock never goes behind it.
    public convenience init(
        path: String,
        schema: AppSchema,
        userID: UUID,
        deviceID: String? = nil,
        wallClock: @escaping @Sendable () -> Int64 = SyncStore.systemClock
    ) throws(SyncError) {
        try self.init(
            path: path, schema: schema, userID: userID, deviceID: deviceID, wallClock: wallClock,
            guardedWrites: Self.makeGuardedWriteQueue()
        )
    }

    /// The file for `userID` in `directory`: one database per user, so a sign-in never sees
    /// another user's rows.
    public static func databaseURL(for userID: UUID, in directory: URL) -> URL {
        directory.appendingPathComponent("sync-\(userID.lowercasedString).sqlite")
    }

    /// Opens `userID`'s database in `directory`.
    public convenience init(directory: URL, schema: AppSchema, userID: UUID) throws(SyncError) {
        try self.init(path: Self.databaseURL(for: userID, in: directory).path, schema: schema, userID: userID)
    }
}
