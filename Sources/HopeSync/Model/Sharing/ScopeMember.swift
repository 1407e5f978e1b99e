import Foundation

/// A current member of a shared scope, as this device last synced the scope's membership table
/// (`<scope table>_members`): the server writes it, so it changes only through ``SyncClient``'s
/// sharing calls and what the pull brings.
public struct ScopeMember: Sendable, Hashable {
    /// The scope row's id.
    public let scopeID: UUID
    public let userID: UUID
    public let role: MemberRole
    /// The owner who added the member (the scope's creator for its first owner).
    public let addedBy: UUID
    /// When the member was added, or added back after leaving.
    public let addedAt: SyncTimestamp

    public init(scopeID: UUID, userID: UUID, role: MemberRole, addedBy: UUID, addedAt: SyncTimestamp) {
        self.scopeID = scopeID
        self.userID = userID
        self.role = role
        self.addedBy = addedBy
        self.addedAt = addedAt
    }
}
