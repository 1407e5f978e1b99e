import Foundation
import Observation

/// A query's current result for SwiftUI: an `@Observable` main-actor model fed by
/// `store.observe { … }`, so a view redraws after each commit that changed what it reads.
/// It follows the store it was given; made from a ``SyncClient`` it follows the signed-in
/// user's store (``value`` is nil while nobody is signed in) across sign-outs and switches.
/// Its work ends at the first change after it is gone.
@MainActor
@Observable
public final class SyncQuery<Value: Sendable> {
    /// The latest result; nil before the first one and while nobody is signed in.
    public private(set) var value: Value?
    /// Why the latest fetch failed, cleared by the next result.
    public private(set) var error: (any Error)?

    /// Follows `query` on `store`.
    public init(store: SyncStore, _ query: @escaping @Sendable (StoreReader) throws -> Value) {
        follow(store.observe(query))
    }

    /// Follows `query` on whichever store the client's signed-in user has.
    public init(client: SyncClient, _ query: @escaping @Sendable (StoreReader) throws -> Value) {
        let sessions = client.sessionUpdates()
        Task { [weak self] in
            var following: Task<Void, Never>?
            for await session in sessions {
                following?.cancel()
                guard let self else { break }
                self.value = nil
                self.error = nil
                if let store = session?.store { following = self.follow(store.observe(query)) }
            }
            following?.cancel()
        }
    }

    @discardableResult
    private func follow(_ results: AsyncThrowingStream<Value, any Error>) -> Task<Void, Never> {
        Task { [weak self] in
            do {
                for try await result in results {
                    guard let self, !Task.isCancelled else { return }
                    self.value = result
                    self.error = nil
                }
            } catch {
                if !Task.isCancelled { self?.error = error }
            }
        }
    }
}
