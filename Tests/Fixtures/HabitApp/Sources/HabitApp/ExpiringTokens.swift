import Foundation
@_spi(Transport) import HopeSync

/// The in-memory server behind a gateway that refuses every first token of a sign-in (those
/// ending in "-1") as expired, as PostgREST refuses an expired JWT; a transport then asks the
/// connection's tokens for a refreshed one once, and uses it in place of the refused one from
/// then on, as PostgRESTTransport does.
struct ExpiringTokens: SyncTransport {
    let server: any SyncTransport
    let tokens: SyncClient.Tokens
    private let refreshed = Refreshed()

    init(server: any SyncTransport, tokens: SyncClient.Tokens) {
        self.server = server
        self.tokens = tokens
    }

    private func admit(_ user: Credentials) async throws(SyncError) -> Credentials {
        guard user.accessToken.hasSuffix("-1") else { return user }
        if let fresh = await refreshed.token(replacing: user.accessToken) { return Credentials(userID: user.userID, accessToken: fresh) }
        guard let fresh = try? await tokens.refreshed(), !fresh.hasSuffix("-1") else {
            throw SyncError(.accessToken, "The server refused the access token and no other is available: sign in again")
        }
        await refreshed.remember(fresh, replacing: user.accessToken)
        return Credentials(userID: user.userID, accessToken: fresh)
    }

    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try await server.upsert(rows, into: table, as: admit(user))
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        try await server.pull(table, after: cursor, limit: limit, as: admit(user))
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues, extraFilters: [Filter], returning: [String],
        as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        try await server.guardedUpdate(
            table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: admit(user))
    }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
        try await server.fetch(table, ids: ids, columns: columns, as: admit(user))
    }

    func pull(_ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials) async throws(SyncError)
        -> PulledTables
    {
        try await server.pull(cursors, since: mark, limit: limit, function: function, as: admit(user))
    }
}

/// Refreshed tokens, each by the refused token it stands in for.
actor Refreshed {
    private var tokens: [String: String] = [:]

    func token(replacing refused: String) -> String? { tokens[refused] }

    func remember(_ token: String, replacing refused: String) { tokens[refused] = token }
}
