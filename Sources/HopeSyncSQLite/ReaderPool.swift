import Foundation

/// A ``DatabasePool``'s read-only connections, opened as needed up to `maximumCount`. In WAL
/// mode a reader never waits for the writer: each read sees the last commit before it began.
final class ReaderPool: @unchecked Sendable {
    let path: String
    private let maximumCount: Int
    private let condition = NSCondition()
    private var idle: [Database] = []
    private var openCount = 0
    private var closed = false
    /// The connection each thread is reading with, so a read nested in a read reuses it
    /// (instead of waiting for a second connection that a full pool may never free).
    private var holders: [(thread: pthread_t, database: Database)] = []

    init(path: String, maximumCount: Int) {
        self.path = path
        self.maximumCount = max(1, maximumCount)
    }

    /// Runs `body` in a read transaction: every statement in it sees the same snapshot.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        if let held = heldByCurrentThread() { return try body(held) }
        let database = try checkOut()
        defer { checkIn(database) }
        try database.cachedStatement("BEGIN DEFERRED").execute()
        defer { try? database.cachedStatement("COMMIT").execute() }
        return try body(database)
    }

    /// Closes idle connections at once and the others as their reads end; later reads throw.
    func close() {
        condition.withLock {
            closed = true
            idle.removeAll()
            condition.broadcast()
        }
    }

    var isClosed: Bool { condition.withLock { closed } }

    private func heldByCurrentThread() -> Database? {
        let me = pthread_self()
        return condition.withLock { holders.first { pthread_equal($0.thread, me) != 0 }?.database }
    }

    private func checkOut() throws(SQLiteError) -> Database {
        condition.lock()
        defer { condition.unlock() }
        while true {
            guard !closed else { throw SQLiteError.closed }
            if let database = idle.popLast() {
                holders.append((pthread_self(), database))
                return database
            }
            if openCount < maximumCount { break }
            condition.wait()
        }
        openCount += 1
        do throws(SQLiteError) {
            // Opened under the lock: rare (once per connection), and it keeps the count exact.
            let database = try Database(path: path)
            // A reader never writes: a write here would take the write lock beside the writer.
            try database.execute("PRAGMA query_only = ON")
            holders.append((pthread_self(), database))
            return database
        } catch {
            openCount -= 1
            throw error
        }
    }

    private func checkIn(_ database: Database) {
        condition.withLock {
            holders.removeAll { $0.database === database }
            if closed {
                openCount -= 1
            } else {
                idle.append(database)
            }
            condition.signal()
        }
    }
}
