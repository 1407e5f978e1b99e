import CHopeSyncSQLite
import Foundation

/// One SQLite connection. Not thread-safe: reach it through a ``DatabaseQueue`` or a
/// ``DatabasePool``, which serialize every access to each connection.
public final class Database {
    let handle: OpaquePointer
    public let path: String
    private var statementCache: [CachedSQL: Statement] = [:]
    private var savepointDepth = 0
    let hooks = ConnectionHooks()

    /// Opens (creating if needed) the database at `path`; ":memory:" for a private in-memory one.
    public init(path: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: message)
        }
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, 5_000)
        hooks.install(on: handle)
    }

    deinit {
        hooks.uninstall(from: handle)
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements with no arguments (migrations, pragmas).
    public func execute(_ sql: String) throws(SQLiteError) {
        hooks.runUnprepared()
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: code, message: text, sql: sql)
        }
    }

    /// Runs one statement with arguments, through the statement cache.
    public func execute(_ sql: String, _ arguments: [DatabaseValue]) throws(SQLiteError) {
        try cachedStatement(sql).execute(arguments)
    }

    /// A prepared statement kept for the life of the connection: prepare once, run many times.
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = statementCache[CachedSQL(sql)] {
            hooks.reuse(sql)
            return statement
        }
        let statement = try hooks.prepare(sql) { () throws(SQLiteError) in try Statement(database: self, sql: sql) }
        statementCache[CachedSQL(sql)] = statement
        return statement
    }

    /// A statement prepared for one use.
    public func makeStatement(_ sql: String) throws(SQLiteError) -> Statement {
        try hooks.prepare(nil) { () throws(SQLiteError) in try Statement(database: self, sql: sql) }
    }

    /// Every row of `sql`, mapped.
    public func fetchAll<T>(_ sql: String, _ arguments: [DatabaseValue] = [], _ transform: (Row) throws -> T) throws -> [T] {
        try cachedStatement(sql).map(arguments, transform)
    }

    /// The first row of `sql`, mapped.
    public func fetchOne<T>(_ sql: String, _ arguments: [DatabaseValue] = [], _ transform: (Row) throws -> T) throws -> T? {
        try cachedStatement(sql).first(arguments, transform)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Rows changed since the connection opened: compare two readings to see if anything changed.
    public var totalChanges: Int { Int(sqlite3_total_changes(handle)) }

    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction (a savepoint when one is already open): commits when it
    /// returns, rolls back when it throws.
    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        let outermost = savepointDepth == 0
        let name = "s\(savepointDepth)"
        // Cached statements: a transaction per write should not re-parse its BEGIN and COMMIT.
        try cachedStatement(outermost ? "BEGIN IMMEDIATE" : "SAVEPOINT \(name)").execute()
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        do {
            let result = try body()
            try cachedStatement(outermost ? "COMMIT" : "RELEASE \(name)").execute()
            return result
        } catch {
            if outermost {
                try? cachedStatement("ROLLBACK").execute()
            } else {
                try? execute("ROLLBACK TO \(name); RELEASE \(name)")
            }
            throw error
        }
    }

    func error(code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

/// A statement cache's key, hashed on the statement's length and its two ends rather than every
/// byte: a store's statements name every column of their table, and a local write looks up four
/// of them. Equal keys are equal texts; two texts that share a length and both ends share a bucket.
private struct CachedSQL: Hashable {
    let sql: String

    init(_ sql: String) {
        self.sql = sql
    }

    func hash(into hasher: inout Hasher) {
        var sql = sql
        sql.withUTF8 { utf8 in
            hasher.combine(utf8.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8.prefix(32))))
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8.suffix(64))))
        }
    }
}
