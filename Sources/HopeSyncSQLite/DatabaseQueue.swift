import Foundation
import HopeSyncLocking

/// One connection that serializes its own access, so it can be shared across tasks: a
/// ``DatabasePool``'s writer, or a database on its own (tests, benchmarks).
public final class DatabaseQueue: @unchecked Sendable {
    private var database: Database?
    /// Recursive: a read inside a write, on the same thread, takes the connection again.
    private let lock = NSRecursiveLock()
    /// How deep the accesses in progress are nested (on the thread holding `lock`).
    private var depth = 0
    /// How many accesses wait for the connection (see ``hasWaiters``).
    private let waiting = Locked(0)
    public let path: String

    /// Opens the database at `path` in WAL mode (`journalMode` .wal) with `synchronous = NORMAL`,
    /// the usual pairing: commits are durable across app crashes and cheap.
    public init(path: String, journalMode: JournalMode = .wal) throws(SQLiteError) {
        let database = try Database(path: path)
        self.database = database
        self.path = path
        // A 16 MiB page cache (the default is 2 MiB): the random uuid keys of a large pull touch
        // pages all over the indexes, and re-reading them from the OS was most of the apply time.
        // Checkpoints every 32 MiB of WAL (the default is 4 MiB): each one waits for the disk.
        try database.execute(
            "PRAGMA journal_mode = \(journalMode.rawValue); PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 8192"
        )
    }

    public enum JournalMode: String, Sendable {
        case wal = "WAL"
        case delete = "DELETE"
        case memory = "MEMORY"
    }

    /// Runs `body` with exclusive use of the connection, outside any transaction.
    public func inDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        if !lock.try() {
            waiting.withLock { $0 += 1 }
            lock.lock()
            waiting.withLock { $0 -= 1 }
        }
        defer { lock.unlock() }
        guard let database else { throw SQLiteError.closed }
        depth += 1
        defer {
            depth -= 1
            if depth == 0 { database.hooks.publish() }
        }
        return try body(database)
    }

    /// Whether another access waits for the connection: a long piece of work made of short steps
    /// (a pull's pages) can end early and let it in.
    public var hasWaiters: Bool { waiting.value > 0 }

    /// Whether the calling thread is inside ``inDatabase(_:)`` (a read there should see what
    /// its own write has not committed yet).
    var isHeldByCurrentThread: Bool {
        // The lock is recursive: taking it succeeds at once on the thread that holds it, and
        // fails on any other while it is held.
        guard lock.try() else { return false }
        defer { lock.unlock() }
        return depth > 0
    }

    /// Starts recording the tables each committed transaction changes, handed over when each
    /// access ends (so after its commits are complete).
    public func trackChanges() throws(SQLiteError) -> CommittedChanges {
        lock.lock()
        defer { lock.unlock() }
        guard let database else { throw SQLiteError.closed }
        return database.trackChanges()
    }

    /// Closes the connection once every access in progress has finished; later accesses throw.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        database = nil
    }

    public var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return database == nil
    }

    /// Runs `body` in a transaction with exclusive use of the connection.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try inDatabase { database in try database.inTransaction { try body(database) } }
    }

    /// Runs `body` with exclusive use of the connection (reads see every committed write).
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try inDatabase(body)
    }
}
