import Foundation

/// A change of one membership, sent at once (never queued: a membership change nobody can see
/// yet could not be undone): add the member or change their role, or end the membership (a
/// removal, or leaving when the member is the caller).
@_spi(Transport) public struct MembershipChange: Sendable, Hashable {
    public var scopeID: UUID
    public var userID: UUID
    /// The role to give; nil ends the membership.
    public var role: MemberRole?

    public init(scopeID: UUID, userID: UUID, role: MemberRole?) {
        self.scopeID = scopeID
        self.userID = userID
        self.role = role
    }
}
