import Foundation

/// Who is signed in and their tokens: the one thing a ``SyncClient`` asks of the app's auth.
///
/// An adapter over the app's auth client is a few lines (README: the one for supabase-swift).
/// Every token the client's transports send comes from here, so the app hands its auth over
/// once.
public protocol SyncAuthSource: Sendable {
    /// The signed-in user (nil: nobody), now and after every change. Each access is a new
    /// sequence whose first element is the user at that moment; a repeated user is ignored.
    /// The client opens and closes stores by it.
    var users: AsyncStream<UUID?> { get }

    /// The signed-in user and their current access token, read together (one session), so a
    /// token is never paired with another user's id; the auth client refreshes an expired token
    /// by itself, as supabase-swift's `session` does. Throws when nobody is signed in.
    func currentCredentials() async throws -> Credentials

    /// The signed-in user with a token refreshed now, whatever the current one's expiry says:
    /// asked once when the server refuses a token. Throws when it cannot be refreshed (the user
    /// must sign in again).
    func refreshedCredentials() async throws -> Credentials
}
