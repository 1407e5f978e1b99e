import Foundation
import HopeSyncLocking

/// Where ``RealtimePokes/announce(_:for:)`` finds the joined sessions of a user: each session
/// opens its outbox once joined and closes it when it ends, so an announcement goes out on the
/// sockets joined now. One made while none is (the channel dropped between a push and its
/// announcement) is held, coalesced by table, and goes out with the user's next join: the
/// server took the write without its own poke, and the other devices would otherwise hear of it
/// only at their next poll. Engines of one user that share a `RealtimePokes` value in one
/// process (a benchmark, a test) cannot be told apart here, so each of their sessions sends it:
/// every channel then hears the poke from another (Realtime's `self: false` keeps a channel's own
/// broadcast from it), at the cost of a poke more, and an app's one engine a user sends it once.
@available(watchOS, unavailable)
final class PokeOutbox: Sendable {
    typealias Send = @Sendable (PokeEvent) -> Void

    private struct State {
        var open: [UUID: [UUID: Send]] = [:]
        /// Per user, per table: the highest server_seq announced while no session was joined
        /// (nil when one of them did not say).
        var held: [UUID: [String?: Int64?]] = [:]
    }

    private let state = Locked(State())

    /// `session` takes `userID`'s announcements through `send` until it closes, starting with
    /// those held for the user.
    func open(for userID: UUID, session: UUID, send: @escaping Send) {
        let held = state.withLock { state in
            state.open[userID, default: [:]][session] = send
            return state.held.removeValue(forKey: userID) ?? [:]
        }
        for (table, serverSeq) in held.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
            send(.poke(table: table, serverSeq: serverSeq))
        }
    }

    func close(for userID: UUID, session: UUID) {
        state.withLock { state in
            state.open[userID]?[session] = nil
            if state.open[userID]?.isEmpty == true { state.open[userID] = nil }
        }
    }

    /// Hands `poke` to `userID`'s joined sessions; false when none is (the poke is then held
    /// for the next join).
    func send(_ poke: PokeEvent, to userID: UUID) -> Bool {
        let sessions = state.withLock { state -> [Send] in
            guard let sessions = state.open[userID], !sessions.isEmpty else {
                let merged = Self.merged(state.held[userID]?[poke.table], poke.serverSeq)
                state.held[userID, default: [:]].updateValue(merged, forKey: poke.table)
                return []
            }
            return Array(sessions.values)
        }
        for send in sessions { send(poke) }
        return !sessions.isEmpty
    }

    /// Two pokes of one table as one: the higher server_seq, or none when either says none.
    private static func merged(_ held: Int64??, _ new: Int64?) -> Int64? {
        guard let held else { return new }
        guard let held, let new else { return nil }
        return max(held, new)
    }
}
