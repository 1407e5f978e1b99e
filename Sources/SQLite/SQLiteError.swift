/// A failure reported by libsqlite3: its result code, its message and the statement it ran.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    public var description: String {
        let statement = sql.map { " in `\($0)`" } ?? ""
        return "SQLite error \(code): \(message)\(statement)"
    }
}
