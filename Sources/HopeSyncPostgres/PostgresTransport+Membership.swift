import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncPostgresClient

/// Membership changes as PostgREST runs them (docs/PROTOCOL.md, "Sharing (scopes)"), as the
/// user: the membership table's policies and write trigger decide, and a refusal keeps its
/// SQLSTATE (`42501`, `22023`, `HS001`, `HS002`, `55P03`).
extension PostgresTransport {
    @discardableResult
    public func changeMembership(_ change: MembershipChange, in membershipTable: TableSchema, as user: Credentials) async throws(SyncError)
        -> [ColumnValues]
    {
        try MembershipChange.check(membershipTable)
        let statement = try PostgresStatement.membership(change, in: membershipTable)
        return try await rows(of: statement, columns: membershipTable.columns, on: membershipTable.name, as: user, readOnly: false)
    }
}

extension PostgresStatement {
    /// PostgREST's statements for a membership change: `insert ... on conflict (scope_id,
    /// user_id) do update set` every column sent (`resolution=merge-duplicates`), or `update ...
    /// set deleted_ms where scope_id and user_id`; both return every column, as
    /// `return=representation`.
    static func membership(_ change: MembershipChange, in table: TableSchema) throws(SyncError) -> PostgresStatement {
        var parameters: [String?] = []
        func parameter(_ value: SyncValue, _ name: String) throws(SyncError) -> String {
            guard let column = table.column(named: name) else {
                throw SyncError(.configuration, "The membership table \(table.name) has no column \(name)")
            }
            parameters.append(value.postgresText)
            return "$\(parameters.count)::\(column.type.postgresType)"
        }
        let returning = " returning " + selectList(table.columns, of: table)
        guard let values = change.upsertedValues else {
            let ending = MembershipChange.endingValues
            var assignments: [String] = []
            for (name, value) in zip(ending.columns, ending.values) {
                assignments.append("\(quoted(name)) = \(try parameter(value, name))")
            }
            var conditions: [String] = []
            for filter in change.filters { conditions.append("\(quoted(filter.column)) = \(try parameter(filter.value, filter.column))") }
            return PostgresStatement(
                sql: "update \(qualified(table)) set \(assignments.joined(separator: ", "))"
                    + " where \(conditions.joined(separator: " and "))" + returning,
                parameters: parameters)
        }
        var placeholders: [String] = []
        for (name, value) in zip(values.columns, values.values) { placeholders.append(try parameter(value, name)) }
        let names = values.columns.map(quoted)
        return PostgresStatement(
            sql: "insert into \(qualified(table)) (\(names.joined(separator: ", "))) values (\(placeholders.joined(separator: ", ")))"
                + " on conflict (\(MembershipChange.conflictColumns.map(quoted).joined(separator: ", ")))"
                + " do update set \(names.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))" + returning,
            parameters: parameters)
    }
}
