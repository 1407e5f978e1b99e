import Foundation
import HopeSyncSQLite

/// One user's local database: the app's synced tables plus the runtime's bookkeeping, in one
/// SQLite file (WAL). Writes are serialized on one connection; reads and observers' fetches run
/// on reader connections beside it. A store can be shared freely.
public final class SyncStore: Sendable {
    public let schema: AppSchema
    public let userID: UUID
    /// This device's id for this user's rows, made once and kept in the database.
    public let deviceID: String
    public let path: String

    /// The file's connections: writes, the engine's work and pulled pages on the writer; reads
    /// and observers' fetches on readers beside it (a read inside a write on the writer).
    let pool: DatabasePool
    /// Mutable state; touched only while the pool's writer is held.
    let state: StoreState
    let tables: [String: TableSQL]
    /// Where version tables' edits of synced rows go instead of the next push (the layer above).
    let guardedWrites: any GuardedWriteQueue
    /// The file columns' files, beside the database (SyncStore+Files.swift).
    let files: FileFolder

    /// Opens (creating and migrating as needed) the database at `path`. The public initializers
    /// (SyncStore+Open.swift) give it the conflicts layer's queue.
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
        files = FileFolder(databasePath: path)
        // No transfer runs before the store is open: what is on its way in was left by a stop.
        files.removeIncoming()
        do {
            pool = try DatabasePool(path: path, maximumReaderCount: Self.readerCount)
            let migrator = StoreMigrator(appMigrations: schema.migrations, syncedTables: schema.tables.map(\.name), nowMs: wallClock())
            let (device, stamps, offset) = try pool.writeWithoutTransaction { database in
                try migrator.migrate(database)
                return try database.inTransaction {
                    try Self.checkOwner(userID, database)
                    return try Self.loadMeta(database, deviceID: deviceID, tables: schema.tables)
                }
            }
            self.deviceID = device
            // Tracked from here on: what opening wrote is nobody's news.
            let changes = try pool.trackChanges()
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
        pool.close()
    }

    /// Reader connections: one for the observers' fetches (they run one at a time) and one for
    /// the app's reads, so neither waits for the other.
    static let readerCount = 2

    /// Milliseconds since 1970 from the system clock: the default wall clock.
    public static let systemClock: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))
    }

    // MARK: Access

    /// Reads with a consistent view of the database: one snapshot of the last commit, never
    /// waiting for a write in progress (inside a write, that write's view). The local database's
    /// failures are `SyncError`s; what `body` throws of its own passes as it is.
    public func read<T>(_ body: (StoreReader) throws -> T) throws -> T {
        try performRead(body)
    }

    /// Reads with a consistent view of the database. The closure runs on a reader's thread: the
    /// calling task waits for a reader without holding a thread, as the read runs.
    public func read<T: Sendable>(_ body: @Sendable (StoreReader) throws -> T) async throws -> T {
        try await pool.onReaderThread { () throws -> T in try performRead(body) }
    }

    /// Writes in one transaction: all of `body` or nothing. Local writes are stamped and queued
    /// for push; observers see the result once it commits.
    @discardableResult
    public func write<T>(_ body: (StoreWriter) throws -> T) throws -> T {
        try performWrite(body)
    }

    @discardableResult
    /// Writes in one transaction. The closure runs on the writer's thread: the calling task waits
    /// for the writer without holding a thread, as the write runs.
    public func write<T: Sendable>(_ body: @Sendable (StoreWriter) throws -> T) async throws -> T {
        try await pool.onWriterThread { () throws -> T in try performWrite(body) }
    }

    /// Empties this user's synced tables, cursors, lists and files (sign-out). The device id and
    /// the clock stay, so later writes still stamp forward.
    public func clearLocalData() throws(SyncError) {
        try withWriter { database in
            try database.inTransaction {
                try persistClock(database)
                for table in schema.tables { try database.execute("DELETE FROM \(quoted(table.name))") }
                try database.execute("DELETE FROM _sync_cursors")
                try Self.forgetPullMark(database)
                try RuntimeMigrations.clearBookkeeping(of: userID, database)
            }
            // Still on the writer: no attach can come between.
            files.removeEveryFile()
        }
        state.notifyObservers()
    }

    private func performRead<T>(_ body: (StoreReader) throws -> T) throws -> T {
        try SyncError.reportingSQLite(closed: pool.isClosed) {
            try pool.read { database in try body(StoreReader(store: self, database: database)) }
        }
    }

    private func performWrite<T>(_ body: (StoreWriter) throws -> T) throws -> T {
        let (result, changed, wroteLocally) = try SyncError.reportingSQLite(closed: pool.isClosed) {
            try pool.writeWithoutTransaction { database in
                let before = database.totalChanges
                let writer = StoreWriter(reader: StoreReader(store: self, database: database))
                let result = try database.inTransaction {
                    let result = try body(writer)
                    // A stamp past the limit is this device's own (its clock was at the limit):
                    // the rows may not show it on the next launch (a newer stamp seen can hide
                    // it), so the clock keeps it.
                    if state.clock.last > state.clock.limit(wallMs: state.wallClock()) { try persistClock(database) }
                    return result
                }
                return (result, database.totalChanges != before, writer.wroteLocally)
            }
        }
        if changed { state.notifyObservers() }
        if wroteLocally { state.localWriteHandler?() }
        return result
    }

    // MARK: The store's own access

    /// Runs `body`, the store's synchronous work on the writer (most of the engine's), on the
    /// writer's thread: the calling task waits for the writer without holding a thread of Swift's
    /// cooperative pool, and SQLite runs off it.
    func onWriter<T>(_ body: @Sendable (SyncStore) throws(SyncError) -> T) async throws(SyncError) -> T {
        try await pool.onWriterThread { () throws(SyncError) -> T in try body(self) }
    }

    /// Runs `body`, the store's synchronous work on a reader (its lists, the files due), on a
    /// reader's thread, waiting for a reader without holding a thread.
    func onReader<T>(_ body: @Sendable (SyncStore) throws(SyncError) -> T) async throws(SyncError) -> T {
        try await pool.onReaderThread { () throws(SyncError) -> T in try body(self) }
    }

    /// Runs `body` on the writer, outside any transaction: the store's own work, serialized with
    /// every write.
    func withWriter<T>(_ body: (Database) throws -> T) throws(SyncError) -> T {
        do {
            return try pool.writeWithoutTransaction(body)
        } catch {
            throw SyncError(local: error, closed: pool.isClosed)
        }
    }

    /// Runs `body` in one transaction on the writer.
    func writeTransaction<T>(_ body: (Database) throws -> T) throws(SyncError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw SyncError(local: error, closed: pool.isClosed)
        }
    }

    /// Runs `body` in one snapshot on a reader (inside an access to the writer, on the writer).
    func withReader<T>(_ body: (Database) throws -> T) throws(SyncError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw SyncError(local: error, closed: pool.isClosed)
        }
    }

    func tableSQL(_ name: String) throws(SyncError) -> TableSQL {
        guard let sql = tables[name] else {
            throw SyncError(.configuration, "The table \(name) is not in this store's schema.")
        }
        return sql
    }
}
