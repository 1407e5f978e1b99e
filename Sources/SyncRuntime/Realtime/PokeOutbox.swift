import Foundation
import Locking

/// Where ``RealtimePokes/announce(_:for:)`` finds the joined sessions of a user: each session
/// opens its outbox once joined and closes it when it ends, so an announcement goes out on the
/// sockets joined now, or nowhere. Engines of one user that share a `RealtimePokes` value in one
/// process (a benchmark, a test) cannot be told apart here, so each of their sessions sends it:
/// every channel then hears the poke from another (Realtime's `self: false` keeps a channel's own
/// broadcast from it), at the cost of a poke more, and an app's one engine a user sends it once.
@available(watchOS, unavailable)
final class PokeOutbox: Sendable {
    private let open = Locked<[UUID: [UUID: @Sendable (PokeEvent) -> Void]]>([:])

    /// `session` takes `userID`'s announcements through `send` until it closes.
    func open(for userID: UUID, session: UUID, send: @escaping @Sendable (PokeEvent) -> Void) {
        open.withLock { $0[userID, default: [:]][session] = send }
    }

    func close(for userID: UUID, session: UUID) {
        open.withLock { open in
            open[userID]?[session] = nil
            if open[userID]?.isEmpty == true { open[userID] = nil }
        }
    }

    /// Hands `poke` to `userID`'s joined sessions; false when none is.
    func send(_ poke: PokeEvent, to userID: UUID) -> Bool {
        let sessions = Array(open.value[userID]?.values ?? [:].values)
        for send in sessions { send(poke) }
        return !sessions.isEmpty
    }
}
