/// The table hope-sync adds beside each scope table, `<scope table>_members`
/// (docs/decisions/0048-sharing-by-scope.md): who shares each scope, and with what role. It is
/// written on the server (owners through row-level security and its rules' trigger); a device
/// keeps a copy it only reads.
public struct MembershipTable: Equatable, Sendable {
    /// The scope table whose rows' members it lists.
    public var scopeTable: String
    public var name: String
    /// The generated Swift row type: the scope's type and `Member` (`TaskList` -> `TaskListMember`).
    public var swiftTypeName: String

    /// The conflict mode the table lists give it: a version table's, so that a pulled row
    /// replaces the device's copy whatever it holds; it has no version column, since no device
    /// writes it (`TableScope.membership` tells the runtime so). A stand-in until the runtime
    /// has a kind for tables only the server writes.
    public static let conflict = ConflictMode.version(.integer)

    /// `<scope table>_members`.
    public static func name(of scopeTable: String) -> String { "\(scopeTable)_members" }

    public init(of scope: Table) {
        scopeTable = scope.name
        name = scope.membershipTableName
        swiftTypeName = scope.swiftTypeName + "Member"
    }

    /// Its columns as both databases hold them, in table order: the server's, which a device
    /// copies as they come (it never writes them, so they carry no write stamps).
    public var columns: [SyncedColumn] {
        [
            SyncedColumn(.id),
            SyncedColumn(user: Column(name: ScopeMembership.scopeColumn, type: .uuid, references: scopeTable)),
            SyncedColumn(user: Column(name: "user_id", type: .uuid)),
            SyncedColumn(user: Column(name: "role", type: .enumeration(ScopeMembership.roles))),
            SyncedColumn(user: Column(name: "added_by", type: .uuid)),
            SyncedColumn(user: Column(name: "added_at", type: .timestamp)),
            SyncedColumn(.deletedMs),
            SyncedColumn(.serverSeq),
        ]
    }
}

extension Table {
    /// The membership table hope-sync adds when this table's rows are scopes.
    public var membershipTable: MembershipTable? {
        sharing == .scope ? MembershipTable(of: self) : nil
    }

    /// The column hope-sync adds for a table that follows another's scope (`scope: task_id`
    /// adds `task_photos.list_id`), said where the column surfaces: `generate`'s note, the
    /// SQLite migration, the Swift row type. Nil for any other table.
    public var addedScopeColumnNote: String? {
        guard case .follows(let through, let column, let scopeTable)? = sharing else { return nil }
        return "\(name).\(column) is added by hope-sync: \(name) reaches its scope \(scopeTable) through \(through)"
    }
}
