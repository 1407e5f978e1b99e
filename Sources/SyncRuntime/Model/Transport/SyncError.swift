import Foundation

/// Every failure the runtime reports. Apps switch on ``code``; messages never carry filter
/// values or tokens.
public struct SyncError: Error, Sendable, Equatable, LocalizedError {
    public enum Code: String, Sendable, Equatable {
        /// `setNetworkEnabled(false)` is in force and the call needed the server.
        case networkDisabled
        /// No connection, or no answer in time.
        case connectivity
        /// The server refused the request; ``serverError`` says why.
        case server
        /// A sync pass stopped with writes still queued (status and code only).
        case syncFailed
        /// The local database is closed.
        case clientClosed
        /// No access token could be had, or the server refused it.
        case accessToken
        /// Nobody is signed in (or another user is): nothing was sent. The engine waits for
        /// this store's user and resumes by itself.
        case signedOut
        /// The request cannot be sent as written.
        case invalidRequest
        /// The server's answer could not be read.
        case decoding
        /// A value could not be written out.
        case encoding
        /// The library was set up wrongly (an unknown table, a database from a newer schema).
        case configuration
        /// The server lacks a column the client has (PGRST204): the server needs a migration.
        case schemaDrift
        /// The calling task was cancelled: neither a network nor a server failure.
        case cancelled
        /// The local database failed a read or a write (a full disk, a damaged file); the
        /// message has SQLite's own.
        case localDatabase
    }

    public var code: Code
    public var message: String
    public var serverError: ServerError?

    public init(_ code: Code, _ message: String, serverError: ServerError? = nil) {
        self.code = code
        self.message = message
        self.serverError = serverError
    }

    public var errorDescription: String? { message }

    /// A timeout or I/O failure (including a switched-off network): never a cancellation, never
    /// anything with an HTTP status.
    public var isNetworkFailure: Bool {
        code == .connectivity || code == .networkDisabled
    }

    public var httpStatus: Int? { serverError?.status }
}
