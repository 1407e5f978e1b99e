/// What both halves spell alike of the membership table hope-sync adds beside each scope table
/// (docs/decisions/0048-sharing-by-scope.md).
public enum ScopeMembership {
    /// The column naming the scope a membership is of.
    public static let scopeColumn = "scope_id"
    /// The roles a member may have, strongest first.
    public static let roles = ["owner", "editor", "viewer"]
}
