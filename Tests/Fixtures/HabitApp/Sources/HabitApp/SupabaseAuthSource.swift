import Foundation
import HopeSync
import Supabase

/// hope-sync's auth source over supabase-swift: who is signed in from `authStateChanges`, the
/// user and token from `session` (which refreshes an expired one), a forced refresh from
/// `refreshSession()`.
struct SupabaseAuthSource: SyncAuthSource {
    let auth: AuthClient

    var users: AsyncStream<UUID?> {
        let changes = auth.authStateChanges
        return AsyncStream { continuation in
            let task = Task {
                for await (_, session) in changes { continuation.yield(session?.user.id) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func currentCredentials() async throws -> Credentials {
        let session = try await auth.session
        return Credentials(userID: session.user.id, accessToken: session.accessToken)
    }

    func refreshedCredentials() async throws -> Credentials {
        let session = try await auth.refreshSession()
        return Credentials(userID: session.user.id, accessToken: session.accessToken)
    }
}
