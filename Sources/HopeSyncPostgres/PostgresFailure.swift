import HopeSync
import HopeSyncPostgresClient

/// PostgreSQL's refusals, reported as PostgREST would report them: the SQLSTATE kept as the
/// code, the HTTP status PostgREST answers with, a missing column or table as schema drift.
enum PostgresFailure {
    /// The runtime's error for `error`, met during a request on `table`.
    static func syncError(_ error: PostgresError, table: String) -> SyncError {
        guard let sqlState = error.sqlState, !isConnectionLoss(sqlState) else {
            // libpq's own text names the host, port, role or database, never the password.
            let reason = error.message.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if let fix = setupMistake(reason) {
                return SyncError(.configuration, "The database refused the connection: \(reason). \(fix)")
            }
            return SyncError(.connectivity, "The database could not be reached: \(reason)")
        }
        let server = ServerError(
            status: httpStatus(sqlState), code: sqlState, message: error.message, details: error.detail, hint: error.hint
        )
        if let drift = SchemaDrift(server) {
            return SyncError(.schemaDrift, drift.description, serverError: server)
        }
        // A data exception's message quotes the input it could not read (a filter's value,
        // perhaps): it stays in the server's error, out of the message that reaches logs.
        let reason = sqlState.hasPrefix("22") ? "" : ": \(error.message)"
        return SyncError(
            .server, "The server refused a request on \(table) (HTTP \(server.status), \(sqlState))\(reason)",
            serverError: server
        )
    }

    /// What to fix when the connection failed for the setup's sake (retrying cannot help), or
    /// nil for a failure to reach the server.
    static func setupMistake(_ message: String) -> String? {
        let mistakes = [
            ("password authentication failed", "Check the user and password in the connection string."),
            ("no password supplied", "Put the password in the connection string."),
            ("role \"", "The user in the connection string does not exist on this server."),
            ("database \"", "The database in the connection string does not exist on this server."),
            ("no pg_hba.conf entry", "The server does not accept this user from this host (pg_hba.conf)."),
            ("invalid connection option", "The connection string is not one libpq reads."),
            ("missing \"=\"", "The connection string is not one libpq reads: use postgresql://user:password@host:port/database."),
            ("invalid URI", "The connection string is not one libpq reads: use postgresql://user:password@host:port/database."),
        ]
        return mistakes.first { message.contains($0.0) && (!$0.0.hasSuffix("\"") || message.contains("does not exist")) }?.1
    }

    /// Whether the connection is gone after `error`: a client-side failure (no SQLSTATE), a
    /// connection exception, or the server shutting the session down. Such a connection is
    /// closed, never lent again.
    static func endsConnection(_ error: PostgresError) -> Bool {
        guard let sqlState = error.sqlState else { return true }
        return isConnectionLoss(sqlState) || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    private static func isConnectionLoss(_ sqlState: String) -> Bool {
        sqlState.hasPrefix("08")
    }

    /// PostgREST's mapping (v12/v13) for a signed-in role: see POSTGREST.md.
    static func httpStatus(_ sqlState: String) -> Int {
        switch sqlState {
        case "23503", "23505": return 409
        case "25006": return 405
        case "42501": return 403
        case "42P01", "42883": return 404
        case "57P01": return 503
        case "P0001": return 400
        default: break
        }
        if sqlState.hasPrefix("PT"), let status = Int(sqlState.dropFirst(2)) { return status }
        switch sqlState.prefix(2) {
        case "08", "53": return 503
        case "0L", "0P", "28": return 403
        case "09", "25", "2D", "38", "39", "3B", "40", "54", "55", "57", "58", "F0", "HV", "P0", "XX": return 500
        default: return 400
        }
    }
}
