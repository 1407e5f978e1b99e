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

/// The answer to a pull of every table at once: each table's next page, read in one snapshot,
/// and the user's mark as of that snapshot.
@_spi(Transport) public struct PulledTables: Sendable {
    /// The user's mark: it moves with every write of their rows. A device that applied every
    /// page of an answer in which no table had more may send it back (`since`): while it has
    /// not moved, the server answers with the mark alone.
    public var mark: Int64
    /// Each table asked for, by name: its page (empty when nothing is past its cursor). Empty
    /// altogether when the mark was the one sent.
    public var pages: [String: PulledPage]
    /// Tables asked for that the server lacks, or lacks columns of (schema drift): for each, a
    /// refusal naming each thing missing, as the tables' own requests would be refused. The
    /// others' pages are good.
    public var drifted: [String: [ServerError]]
    /// The server's clock when it answered (milliseconds since 1970), when the answer says.
    public var serverTimeMs: Int64?

    public init(mark: Int64, pages: [String: PulledPage], drifted: [String: [ServerError]] = [:], serverTimeMs: Int64? = nil) {
        self.mark = mark
        self.pages = pages
        self.drifted = drifted
        self.serverTimeMs = serverTimeMs
    }
}

extension SyncTransport {
    /// A transport that does not implement the server's functions answers as a server without
    /// them does: the engine then syncs through the tables.
    public func pull(
        _ cursors: [TableCursor], since mark: Int64?, limit: Int, function: String, as user: Credentials
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
