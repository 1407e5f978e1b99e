import HopeSyncModel

/// What a member of a shared scope may do (docs/PROTOCOL.md, "Sharing (scopes)"): viewers read
/// its rows, editors also write them, owners also manage its members and delete it.
public struct MemberRole: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// `owner`, `editor` or `viewer`, as the membership table spells it.
    public let rawValue: String

    /// Nil for a role the server does not know.
    public init?(rawValue: String) {
        guard ScopeMembership.roles.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    private init(known: String) {
        rawValue = known
    }

    public static let owner = MemberRole(known: "owner")
    public static let editor = MemberRole(known: "editor")
    public static let viewer = MemberRole(known: "viewer")

    /// Whether the role writes the scope's rows (owners and editors).
    public var canWrite: Bool { self != .viewer }
    /// Whether the role adds, changes and removes members (owners).
    public var canManageMembers: Bool { self == .owner }

    public var description: String { rawValue }
}
