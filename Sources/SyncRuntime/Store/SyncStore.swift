import Foundation
import SQLite

/// One user's local database: the app's synced tables plus the runtime's bookkeeping, in one
/// SQLite file (WAL). Writes are serialized on one connection; reads and observers' fetches run
/// on reader connections beside it. A store can be shared freely.
public final class SyncStore: @unchecked Sendable {
    public let schema: AppSchema
    public let userID: UUID
    /// This device's id for this user's rows, made once and kept in the database.
    public let deviceID: String
    public let path: String

    /// The writing connection: writes, the engine's work, and reads inside a write.
    let queue: DatabaseQueue
    /// Reads: WAL lets them run while a write or a pulled page is in progress.
    let readers: ReaderPool
    /// Mutable state; touched only while `queue` is held.
    let state: StoreState
    let tables: [String: TableSQL]
    /// Where version tables' edits of synced rows go instead of the next push (the layer above).
    let guardedWrites: any GuardedWriteQueue

    /// Opens (creating and migrating as needed) the database at `path`. The public initializers
    /// (Conflicts/SyncStore+Open.swift) give it the conflicts layer's queue.
    init(
        path: String,
        schema: AppSchema,
        userID: UUID,
        deviceID: String?,
        wallClock: @escaping @Sendable () -> Int64,
        guardedWrites: any GuardedWriteQueue
    ) throws(SyncError) {
        self.schema = schema
        self.guardedWrites = guardedWrites
        self.userID = userID
        self.path = path
        tables = Dictionary(uniqueKeysWithValues: schema.tables.map { ($0.name, TableSQL($0)) })
        do {
            queue = try DatabaseQueue(path: path)
            let migrator = StoreMigrator(appMigrations: schema.migrations, syncedTables: schema.tables.map(\.name), nowMs: wallClock())
            let (device, stamps, offset) = try queue.inDatabase { database in
                try migrator.migrate(database)
                return try database.inTransaction {
                    try Self.checkOwner(userID, database)
                    return try Self.loadMeta(database, deviceID: deviceID, tables: schema.tables)
                }
            }
            self.deviceID = device
            // Tracked from here on: what opening wrote is nobody's news.
            let changes = try queue.trackChanges()
            readers = ReaderPool(path: path, maximumCount: Self.readerCount)
            state = StoreState(
                clock: HybridClock(resumingAt: stamps, serverOffsetMs: offset, wallMs: wallClock()), wallClock: wallClock, changes: changes)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.configuration, "Cannot open the local database at \(path): \(error)")
        }
    }

    /// Closes the database; later calls fail with `SyncError(.clientClosed)`.
    public func close() {
        // Observers first: a fetch still running then ends its stream quietly, not with the
        // closed database's error.
        state.finishObservers()
        queue.close()
        readers.close()
    }

    /// Reader connections: one for the observers' fetches (they run one at a time) and one for
    /// the app's reads, so neither waits for the other.
    static let readerCount = 2

    // MARK: Access

    /// Reads with a consistent view of the database.
    public func read<T>(_ body: (StoreReader) throws -> T) throws -> T {
        try performRead(body)
    }

    /// Reads with a consistent view of the database (the closure may run off the caller's actor).
    public func read<T: Sendable>(_ body: @Sendable (StoreReader) throws -> T) async throws -> T {
        try performRead(body)
    }

    /// Writes in one transaction: all of `body` or nothing. Local writes are stamped and queued
    /// for push; observers see the result once it commits.
    @discardableResult
    public func write<T>(_ body: (StoreWriter) throws -> T) throws -> T {
        try performWrite(body)
    }

    @discardableResult
    /// Writes in one transaction (the closure may run off the caller's actor).
    public func write<T: Sendable>(_ body: @Sendable (StoreWriter) throws -> T) async throws -> T {
        try performWrite(body)
    }

    func performRead<T>(_ body: (StoreReader) throws -> T) throws -> T {
        try readAccess { database in try body(StoreReader(store: self, database: database)) }
    }

    func performWrite<T>(_ body: (StoreWriter) throws -> T) throws -> T {
        let (result, changed, wroteLocally) = try access { database in
            let before = database.totalChanges
            let writer = StoreWriter(reader: StoreReader(store: self, database: database))
            let result = try database.inTransaction {
                let result = try body(writer)
                // A stamp past the limit is this device's own (its clock was at the limit): the
                // rows may not show it on the next launch (a newer stamp seen can hide it), so
                // the clock keeps it.
                if state.clock.last > state.clock.limit(wallMs: state.wallClock()) { try persistClock(database) }
                return result
            }
            return (result, database.totalChanges != before, writer.wroteLocally)
        }
        if changed { state.notifyObservers() }
        if wroteLocally { state.localWriteHandler?() }
        return result
    }

    /// Runs `body` on the connection, mapping SQLite's failures to ``SyncError``.
    func access<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.inDatabase(body)
        } catch let error as SQLiteError where queue.isClosed {
            throw SyncError(.clientClosed, "The local database is closed (\(error.message)).")
        }
    }

    /// Runs `body` on a reader connection, in one snapshot: the last commit before it began, never
    /// waiting for a write in progress. On a thread inside an access to the writer (a read within
    /// `write`), on the writer instead, which holds that write's uncommitted rows.
    func readAccess<T>(_ body: (Database) throws -> T) throws -> T {
        if queue.isHeldByCurrentThread { return try access(body) }
        do {
            return try readers.read(body)
        } catch let error as SQLiteError where readers.isClosed {
            throw SyncError(.clientClosed, "The local database is closed (\(error.message)).")
        }
    }

    /// Records the clock in `_sync_meta`, for when the rows that hold its stamps are deleted.
    func persistClock(_ database: Database) throws {
        try database.execute(
            "INSERT OR REPLACE INTO _sync_meta (key, value) VALUES ('clock', ?)", [.text(String(state.clock.last))]
        )
    }

    /// The server said its clock read `serverMs` just now: the clock's physical part follows it,
    /// and the offset is kept for the next launch (a device may start offline).
    func observeServerTime(_ serverMs: Int64?, _ database: Database) throws {
        guard let serverMs, state.clock.observeServerTime(serverMs, wallMs: state.wallClock()),
            let offset = state.clock.serverOffsetMs
        else { return }
        try database.execute("INSERT OR REPLACE INTO _sync_meta (key, value) VALUES ('server_offset', ?)", [.text(String(offset))])
    }

    func tableSQL(_ name: String) throws -> TableSQL {
        guard let sql = tables[name] else {
            throw SyncError(.configuration, "The table \(name) is not in this store's schema.")
        }
        return sql
    }

    /// A store file belongs to the user it was made for: opened for anyone else it would show
    /// them that user's rows and send that user's writes with their credentials.
    private static func checkOwner(_ userID: UUID, _ database: Database) throws {
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
    private static func loadMeta(
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
