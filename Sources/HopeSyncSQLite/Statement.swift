import CHopeSyncSQLite
import Foundation

// libsqlite3 copies a value bound with this destructor; the constant is a macro Swift cannot import.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
private nonisolated(unsafe) let emptyText: UnsafePointer<CChar> = {
    let storage = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
    storage.initialize(to: 0)
    return UnsafePointer(storage)
}()

/// A prepared statement. Not thread-safe: use it only inside the access that made it.
public final class Statement {
    let handle: OpaquePointer
    public let sql: String

    init(database: Database, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw database.error(code: code, sql: sql)
        }
        self.handle = handle
        self.sql = sql
    }

    /// The connection's last error, with this statement (libsqlite3 keeps a closed
    /// connection alive until its last statement is finalized, so this is always valid).
    private func error(code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: sql)
    }

    deinit { sqlite3_finalize(handle) }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func columnName(at index: Int) -> String {
        String(cString: sqlite3_column_name(handle, Int32(index)))
    }

    /// Resets the statement and binds `arguments` to its parameters, in order.
    public func bind(_ arguments: [DatabaseValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in arguments.enumerated() {
            try bind(value, at: offset + 1)
        }
    }

    /// Clears the last run's state and bindings, to bind parameters one by one.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Runs to completion with the parameters bound so far, discarding any rows.
    public func run() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() != nil {}
    }

    /// Binds one parameter (1-based, as SQLite counts).
    public func bind(_ value: DatabaseValue, at index: Int) throws(SQLiteError) {
        let position = Int32(index)
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, position)
        case .integer(let int): code = sqlite3_bind_int64(handle, position, int)
        case .real(let double): code = sqlite3_bind_double(handle, position, double)
        case .text(var text):
            // With its length: SQLite need not look for the end of the text.
            code = text.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    // An empty text still needs a pointer: a null one would bind NULL.
                    sqlite3_bind_text(handle, position, chars.baseAddress ?? emptyText, Int32(chars.count), transient)
                }
            }
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                sqlite3_bind_blob(handle, position, bytes.baseAddress, Int32(bytes.count), transient)
            }
        }
        guard code == SQLITE_OK else { throw error(code: code) }
    }

    /// Advances to the next row; nil when done. The row is valid until the next step.
    public func step() throws(SQLiteError) -> Row? {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return Row(handle: handle)
        case SQLITE_DONE: return nil
        case let code:
            let failure = error(code: code)
            sqlite3_reset(handle)
            throw failure
        }
    }

    /// Binds and runs to completion, discarding any rows.
    public func execute(_ arguments: [DatabaseValue] = []) throws(SQLiteError) {
        try bind(arguments)
        while try step() != nil {}
        sqlite3_reset(handle)
    }

    /// Binds, then calls `body` with every row.
    public func forEachRow(_ arguments: [DatabaseValue] = [], _ body: (Row) throws -> Void) throws {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        while let row = try step() {
            try body(row)
        }
    }

    /// Binds and maps every row.
    public func map<T>(_ arguments: [DatabaseValue] = [], _ transform: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEachRow(arguments) { result.append(try transform($0)) }
        return result
    }

    /// Binds and maps the first row, if any.
    public func first<T>(_ arguments: [DatabaseValue] = [], _ transform: (Row) throws -> T) throws -> T? {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        return try step().map(transform)
    }
}
