/// A failure reported by libsqlite3: its result code, its message and the statement it ran.
/// Everything in this module that fails on its own throws this type; what takes a closure throws
/// whatever the closure throws as well.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// An access after ``DatabaseQueue/close()`` or ``DatabasePool/close()`` (SQLITE_MISUSE).
    static let closed = SQLiteError(code: 21, message: "the database is closed")

    public var description: String {
        let statement = sql.map { " in `\($0)`" } ?? ""
        return "SQLite error \(code): \(message)\(statement)"
    }
}
