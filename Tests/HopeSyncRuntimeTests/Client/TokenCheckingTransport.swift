import Foundation
@_spi(Transport) import HopeSync
import HopeSyncTestSupport

/// Lets through only requests signed with `accepted`; a refused token is replaced once through
/// the connection's tokens, as the Supabase transports do.
struct TokenCheckingTransport: ForwardingTransport {
    let forwardee: any SyncTransport
    let tokens: SyncClient.Tokens
    let accepted: String

    private func admit(_ user: Credentials) async throws(SyncError) -> Credentials {
        if user.accessToken == accepted { return user }
        let fresh = try? await tokens.refreshed()
        guard fresh == accepted else { throw SyncError(.accessToken, "The server refused the access token") }
        return Credentials(userID: user.userID, accessToken: accepted)
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try await forwardee.upsert(rows, into: table, as: try await admit(user))
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        try await forwardee.pull(table, after: cursor, limit: limit, as: try await admit(user))
    }

    func pull(
        _ cursors: PullCursors, since mark: Int64?, limit: Int, function: String, as user: Credentials
    ) async throws(SyncError) -> PulledTables {
        try await forwardee.pull(cursors, since: mark, limit: limit, function: function, as: try await admit(user))
    }
}
