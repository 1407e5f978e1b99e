import Foundation

/// Where one table's pull starts, in a pull of every table at once.
@_spi(Transport) public struct TableCursor: Sendable {
    public var table: TableSchema
    /// Rows with a larger server_seq come (the cursor, less a lookback table's window).
    public var after: Int64

    public init(_ table: TableSchema, after: Int64) {
        self.table = table
        self.after = after
    }
}

/// Where each stream's pull starts, in a pull of every table at once (docs/PROTOCOL.md,
/// "Sharing (scopes)"): the own stream's tables, and each scope the device knows with its
/// tables. A scope the device does not name is read from the start of each of its tables.
@_spi(Transport) public struct PullCursors: Sendable, ExpressibleByArrayLiteral {
    /// The own stream's cursors: rows no scope holds.
    public var own: [TableCursor]
    /// Each known scope's cursors, by scope id (lowercase); an empty list reads none of its
    /// tables (the scope is still listed). Nil asks in the shape before sharing (no `"@scopes"`):
    /// the server then answers the caller's own rows and the scopes only they belong to.
    public var scopes: [String: [TableCursor]]?
    /// Every table a scope holds (scope, shared and membership tables): how the answer's pages
    /// of a scope the request did not name are read.
    public var sharedTables: [TableSchema]

    public init(own: [TableCursor], scopes: [String: [TableCursor]]? = nil, sharedTables: [TableSchema] = []) {
        self.own = own
        self.scopes = scopes
        self.sharedTables = sharedTables
    }

    public init(arrayLiteral cursors: TableCursor...) {
        self.init(own: cursors)
    }
}

/// The answer to a pull of every table at once: each table's next page, read in one snapshot,
/// and the user's mark as of that snapshot.
@_spi(Transport) public struct PulledTables: Sendable {
    /// The user's mark: it moves with every write of their rows. A device that applied every
    /// page of an answer in which no table had more may send it back (`since`): while it has
    /// not moved, the server answers with the mark alone.
    public var mark: Int64
    /// Each own-stream table asked for, by name: its page (empty when nothing is past its
    /// cursor). Empty altogether when the mark was the one sent.
    public var pages: [String: PulledPage]
    /// Tables asked for that the server lacks, or lacks columns of (schema drift): for each, a
    /// refusal naming each thing missing, as the tables' own requests would be refused. The
    /// others' pages are good.
    public var drifted: [String: [ServerError]]
    /// Every scope the caller is a member of as of the snapshot, by scope id (lowercase), when
    /// the request named scopes and the answer is not idle. Nil: an idle answer, or a server
    /// whose function predates sharing; neither says anything of the scopes.
    public var scopes: [String: PulledScope]?
    /// The server's clock when it answered (milliseconds since 1970), when the answer says.
    public var serverTimeMs: Int64?

    public init(
        mark: Int64, pages: [String: PulledPage], drifted: [String: [ServerError]] = [:], scopes: [String: PulledScope]? = nil,
        serverTimeMs: Int64? = nil
    ) {
        self.mark = mark
        self.pages = pages
        self.drifted = drifted
        self.scopes = scopes
        self.serverTimeMs = serverTimeMs
    }
}

/// One scope in a pull's answer: the caller's role in it and its tables' pages.
@_spi(Transport) public struct PulledScope: Sendable {
    public var role: MemberRole
    /// Each table of the scope the request read, by name.
    public var pages: [String: PulledPage]

    public init(role: MemberRole, pages: [String: PulledPage]) {
        self.role = role
        self.pages = pages
    }
}

extension SyncTransport {
    /// A transport that does not implement the server's functions answers as a server without
    /// them does: the engine then syncs through the tables.
    public func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        throw .lacksFunction(function)
    }
}

extension SyncError {
    /// The server has no function of this name (PostgREST's PGRST202, PostgreSQL's 42883):
    /// its SQL is older than the app's.
    package static func lacksFunction(_ function: String) -> SyncError {
        SyncError(
            .server, "The server has no function \(function): its SQL is older than this app's",
            serverError: ServerError(
                status: 404, code: "PGRST202", message: "Could not find the function public.\(function) in the schema cache"))
    }

    /// Whether the server lacks the function a request called (so the tables serve instead).
    package func lacksFunction(_ function: String) -> Bool {
        guard code == .server, let server = serverError else { return false }
        return server.code == "PGRST202" || (server.code == "42883" && server.message.contains(function))
    }
}
