/// A failure reported by PostgreSQL or by libpq, with the server's fields kept apart so callers
/// can switch on `sqlState` (`42501`, `23505` ...) the way PostgREST does.
///
/// Never carries a password: connection errors are scrubbed of the one in the URL.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE; nil for client-side failures (cannot connect, connection lost).
    public var sqlState: String?
    public var message: String
    public var detail: String?
    public var hint: String?

    public init(sqlState: String? = nil, message: String, detail: String? = nil, hint: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
    }

    public var description: String {
        var text = sqlState.map { "\($0): \(message)" } ?? message
        if let detail { text += " (detail: \(detail))" }
        if let hint { text += " (hint: \(hint))" }
        return text
    }

    /// `42501`: the role lacks a privilege or a row-level security policy refused the row.
    public var isInsufficientPrivilege: Bool { sqlState == "42501" }
}
