import Foundation
import HopeSyncModel

/// Membership changes as PostgREST takes them (docs/PROTOCOL.md, "Sharing (scopes)"): sent at
/// once, never queued, and answered with the membership rows as the server wrote them.
extension PostgRESTTransport {
    /// Adding a member or changing a role: `POST /<members>?on_conflict=scope_id,user_id&select=...`
    /// with `Prefer: resolution=merge-duplicates,return=representation`. Ending one:
    /// `PATCH /<members>?scope_id=eq.S&user_id=eq.U&select=...` with `{"deleted_ms": 1}`. An
    /// empty answer is the server's: row-level security let nothing through, or a repeat
    /// changed nothing.
    @discardableResult
    public func changeMembership(_ change: MembershipChange, in membershipTable: TableSchema, as user: Credentials) async throws(SyncError)
        -> [ColumnValues]
    {
        try MembershipChange.check(membershipTable)
        let select = PostgRESTRequest.QueryItem.select(membershipTable.columnNames)
        let request: PostgRESTRequest
        if let values = change.upsertedValues {
            request = PostgRESTRequest(
                method: "POST",
                table: membershipTable.name,
                query: [.list("on_conflict", MembershipChange.conflictColumns), select],
                prefer: "resolution=merge-duplicates,return=representation",
                body: try PostgRESTRowCoding.objectBody(values, of: membershipTable)
            )
        } else {
            request = PostgRESTRequest(
                method: "PATCH",
                table: membershipTable.name,
                query: change.filters.map(PostgRESTRequest.QueryItem.filter) + [select],
                prefer: "return=representation",
                body: try PostgRESTRowCoding.objectBody(MembershipChange.endingValues, of: membershipTable)
            )
        }
        let answer = try await send(request, as: user)
        return try PostgRESTRowCoding.rows(
            answer.json(of: membershipTable.name), columns: membershipTable.columns, of: membershipTable.name)
    }
}

extension PostgRESTRequest.QueryItem {
    /// `name=a,b`: each value encoded, the commas left literal (as in `select`).
    static func list(_ name: String, _ values: [String]) -> Self {
        Self(
            encodedName: PostgRESTRequest.percentEncoded(name),
            encodedValue: values.map(PostgRESTRequest.percentEncoded).joined(separator: ","))
    }
}
