import Foundation

/// Sharing a scope with other users (decision 0048): the signed-in user's engine sends each
/// change at once, and the signed-in user's store answers who is in a scope and which scopes the
/// user belongs to. Observe them with ``SyncStore/observeMembers(of:)`` and
/// ``SyncStore/observeSharedScopes()``, or across sign-ins with ``SyncQuery`` and
/// ``StoreReader/members(of:)``.
///
/// ```swift
/// try await client.share(groceries, with: anaID, as: .editor)
/// let members = try await client.members(of: groceries)
/// ```
extension SyncClient {
    /// Shares `scope` (a row of a scope table) with `userID` as `role`: adds them, adds them back,
    /// or changes their role (``SyncEngine/share(_:with:as:)``). Sent at once, never queued:
    /// `SyncError(.signedOut)` while nobody is signed in, the connectivity error while offline.
    public func share(_ scope: some SyncRecord, with userID: UUID, as role: MemberRole) async throws(SyncError) {
        try await signedInEngine().share(scope, with: userID, as: role)
    }

    /// Removes `userID` from `scope` (owners only; ``SyncEngine/removeMember(_:from:)``).
    public func removeMember(_ userID: UUID, from scope: some SyncRecord) async throws(SyncError) {
        try await signedInEngine().removeMember(userID, from: scope)
    }

    /// Ends the signed-in user's membership of `scope` (``SyncEngine/leave(_:)``).
    public func leave(_ scope: some SyncRecord) async throws(SyncError) {
        try await signedInEngine().leave(scope)
    }

    /// The current members of `scope` as this device last synced them; none while signed out.
    public func members(of scope: some SyncRecord) throws(SyncError) -> [ScopeMember] {
        try session?.store.members(of: scope) ?? []
    }

    /// The shared scopes the signed-in user belongs to, as the last pull listed them; none while
    /// signed out.
    public func sharedScopes() throws(SyncError) -> [SharedScope] {
        try session?.store.sharedScopes() ?? []
    }

    private func signedInEngine() throws(SyncError) -> SyncEngine {
        guard let session else { throw SyncError(.signedOut, "Nobody is signed in; nothing was sent.") }
        return session.engine
    }
}
