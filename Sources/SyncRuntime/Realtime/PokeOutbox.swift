import Foundation
import Locking

/// Where ``RealtimePokes/announce(_:for:)`` finds the joined session of a user: each session
/// opens its outbox once joined and closes it when it ends, so an announcement goes out on the
/// socket that is joined now, or nowhere.
@available(watchOS, unavailable)
final class PokeOutbox: Sendable {
    private struct Open {
        let session: UUID
        let send: @Sendable (PokeEvent) -> Void
    }

    private let open = Locked<[UUID: Open]>([:])

    /// `session` takes `userID`'s announcements through `send` until it closes.
    func open(for userID: UUID, session: UUID, send: @escaping @Sendable (PokeEvent) -> Void) {
        open.withLock { $0[userID] = Open(session: session, send: send) }
    }

    func close(for userID: UUID, session: UUID) {
        open.withLock { open in
            if open[userID]?.session == session { open[userID] = nil }
        }
    }

    /// Hands `poke` to `userID`'s joined session; false when none is.
    func send(_ poke: PokeEvent, to userID: UUID) -> Bool {
        guard let session = open.value[userID] else { return false }
        session.send(poke)
        return true
    }
}
