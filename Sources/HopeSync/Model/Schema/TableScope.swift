import HopeSyncModel

/// How a table's rows are shared between users (docs/decisions/0048-sharing-by-scope.md), as
/// the generated table list says: each row's scope is the row of ``scopeTable`` its ``column``
/// names, and the scope's members, listed in ``membershipTable``, share it. A table without one
/// keeps every row its owner's alone. Kinds may be added: compare with `==`, or switch over
/// ``kind`` with a `default`.
///
/// The runtime does not sync shared rows yet: sharing is being built in steps, and this is what
/// the generator tells a client so far.
public struct TableScope: Sendable, Hashable {
    public let kind: Kind
    /// The column naming a row's scope: `id` for a scope table (each row is its own scope),
    /// `scope_id` for a membership table.
    public let column: String
    /// The table whose rows are the scopes.
    public let scopeTable: String
    /// The scope table's membership table, `<scope table>_members`.
    public let membershipTable: String
    /// The reference a following table reaches its scope through; nil for the other kinds.
    public let through: String?

    private init(_ kind: Kind, column: String, scopeTable: String, membershipTable: String, through: String? = nil) {
        self.kind = kind
        self.column = column
        self.scopeTable = scopeTable
        self.membershipTable = membershipTable
        self.through = through
    }

    /// Each row of `table` is a scope (`scope: true`), its members listed in `members`.
    public static func scope(_ table: String, members: String) -> TableScope {
        TableScope(.scope, column: ReservedColumn.id, scopeTable: table, membershipTable: members)
    }

    /// A row's scope is the row of `scopeTable` that `column` names (`scope: list_id`); a row
    /// whose column is null is its owner's alone.
    public static func scoped(by column: String, in scopeTable: String, members: String) -> TableScope {
        TableScope(.scoped, column: column, scopeTable: scopeTable, membershipTable: members)
    }

    /// A row follows the row its `through` column references (`scope: task_id`): hope-sync added
    /// `column`, named as that row's scope column, which holds that row's scope.
    public static func follows(through: String, column: String, in scopeTable: String, members: String) -> TableScope {
        TableScope(.follows, column: column, scopeTable: scopeTable, membershipTable: members, through: through)
    }

    /// The table is `scopeTable`'s membership table (`table`), which hope-sync adds: the server
    /// writes it, devices only read it.
    public static func membership(of scopeTable: String, table: String) -> TableScope {
        TableScope(.membership, column: ScopeMembership.scopeColumn, scopeTable: scopeTable, membershipTable: table)
    }

    /// A scope without what it names, to switch over: `case .scoped:`.
    public struct Kind: Sendable, Hashable {
        private enum Name: Sendable, Hashable {
            case scope, scoped, follows, membership
        }

        private let name: Name

        private init(_ name: Name) {
            self.name = name
        }

        public static let scope = Kind(.scope)
        public static let scoped = Kind(.scoped)
        public static let follows = Kind(.follows)
        public static let membership = Kind(.membership)
    }
}
