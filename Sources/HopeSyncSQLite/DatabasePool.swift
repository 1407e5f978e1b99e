import HopeSyncLocking

/// A WAL database shared across threads, after GRDB's `DatabasePool`: one writer connection
/// serializes every write, and up to `maximumReaderCount` read-only connections run reads beside
/// it, each read one snapshot of the last commit before it began.
///
/// A read on a thread that is inside an access to the writer (a read within a write) runs on the
/// writer instead: it sees that write's uncommitted rows, and it never waits for a reader while
/// it holds the writer.
///
/// Its accesses block the calling thread while they wait and while SQLite works. An async
/// caller runs them on the connections' own threads instead (``onWriterThread(_:)``,
/// ``onReaderThread(_:)``), as GRDB's async accessors do: it waits without holding a thread,
/// and no thread of Swift's cooperative pool ever waits for a connection or runs SQLite.
public final class DatabasePool: Sendable {
    public let path: String
    private let writer: DatabaseQueue
    private let readers: ReaderPool
    /// The thread the async accesses to the writer run on, one after another.
    private let writerThread = WorkerThreads<Void>(limit: 1)
    /// The threads the async reads run on, one per reader connection.
    private let readerThreads: WorkerThreads<Void>

    /// Opens (creating if needed) the database at `path` in WAL mode; readers open as reads need them.
    public init(path: String, maximumReaderCount: Int) throws(SQLiteError) {
        writer = try DatabaseQueue(path: path, journalMode: .wal)
        readers = ReaderPool(path: path, maximumCount: maximumReaderCount)
        readerThreads = WorkerThreads(limit: maximumReaderCount)
        self.path = path
    }

    deinit {
        writerThread.close()
        readerThreads.close()
    }

    /// Runs `body`, which accesses the writer (``write(_:)``, ``writeWithoutTransaction(_:)``),
    /// on the writer's thread: the calling task waits for the accesses queued before it, and for
    /// the writer, without holding a thread.
    public func onWriterThread<T, E: Error>(_ body: @Sendable () throws(E) -> T) async throws(E) -> T {
        try await writerThread.run { (_) throws(E) -> T in try body() }
    }

    /// Runs `body`, which reads (``read(_:)``), on a thread of the readers': the calling task
    /// waits for a reader without holding a thread.
    public func onReaderThread<T, E: Error>(_ body: @Sendable () throws(E) -> T) async throws(E) -> T {
        try await readerThreads.run { (_) throws(E) -> T in try body() }
    }

    /// Runs `body` with exclusive use of the writer, outside any transaction: for work that opens
    /// its own transactions (migrations), or that must be serialized with the writes.
    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.inDatabase(body)
    }

    /// Runs `body` in a transaction on the writer: all of it or nothing.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.write(body)
    }

    /// Whether an access to the writer waits for the one in progress (on its thread, or queued
    /// for the writer's thread).
    public var hasWaitingWriters: Bool { writer.hasWaiters || writerThread.queuedCount > 0 }

    /// Runs `body` in one snapshot on a reader, never waiting for a write in progress; inside an
    /// access to the writer on this thread, on the writer.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        if writer.isHeldByCurrentThread { return try writer.inDatabase(body) }
        return try readers.read(body)
    }

    /// Starts recording the tables each transaction committed on the writer changes, handed
    /// over when each access to the writer ends (so after its commits are complete).
    public func trackChanges() throws(SQLiteError) -> CommittedChanges {
        try writer.trackChanges()
    }

    /// Closes the writer once its access in progress ends, idle readers at once and the others
    /// as their reads end; every later access throws.
    public func close() {
        writer.close()
        readers.close()
    }

    /// True once ``close()`` has begun: a failure after it is the closing's doing.
    public var isClosed: Bool { writer.isClosed }
}
