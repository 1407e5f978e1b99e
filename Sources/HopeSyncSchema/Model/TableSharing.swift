/// How a table's rows are shared between users (docs/decisions/0048-sharing-by-scope.md). A
/// table without sharing keeps every row its owner's alone.
public enum TableSharing: Equatable, Sendable {
    /// Each row is a sharing scope (`scope: true`): its members, listed in the generated
    /// membership table, see and edit it and the rows of every table it scopes.
    case scope
    /// A row's scope is the row of `scopeTable` that `column` names (`scope: list_id`); a row
    /// whose column is null is its owner's alone.
    case scoped(by: String, scopeTable: String)
    /// A row follows the row its `through` column references (`scope: task_id`): hope-sync adds
    /// `column`, named as that row's scope column, and keeps it equal to that row's.
    case follows(through: String, column: String, scopeTable: String)

    /// The column naming a row's scope: the row's own id for a scope.
    public var scopeColumn: String {
        switch self {
        case .scope: ReservedColumn.id
        case .scoped(let column, _), .follows(_, let column, _): column
        }
    }
}

extension Table {
    /// The scope table whose members share this table's rows; nil when rows are their owner's.
    public var scopeTable: String? {
        switch sharing {
        case nil: nil
        case .scope: name
        case .scoped(_, let scopeTable)?, .follows(_, _, let scopeTable)?: scopeTable
        }
    }

    /// The generated table listing a scope's members: `<scope table>_members`.
    public var membershipTableName: String { "\(name)_members" }
}

extension Schema {
    /// The tables whose rows are sharing scopes, in schema order.
    public var scopeTables: [Table] { tables.filter { $0.sharing == .scope } }
}
