import Foundation

/// A shared scope the user belongs to, as the last pull listed it: its rows may be another
/// user's, and ``role`` says what this user may do with them.
public struct SharedScope: Sendable, Hashable {
    /// The scope row's id.
    public let id: UUID
    /// The scope table (`task_lists`).
    public let table: String
    public let role: MemberRole
    /// The scope's rows are still arriving: the user joined it and the pulls have not read all
    /// of it yet, so a screen may say "loading" rather than show a partial list as whole.
    public let isArriving: Bool

    public init(id: UUID, table: String, role: MemberRole, isArriving: Bool) {
        self.id = id
        self.table = table
        self.role = role
        self.isArriving = isArriving
    }
}
