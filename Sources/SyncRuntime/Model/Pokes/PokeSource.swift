import Foundation

/// Where the engine hears that the server has something new for its user: a Realtime channel
/// (``RealtimePokes``) on devices that can hold one, a fake in tests. A poke only says "pull
/// now"; rows still arrive by the pull alone, so a lost poke costs time, never a row.
public protocol PokeSource: Sendable {
    /// What happens for `userID`, until the stream's consumer stops (which disconnects). The
    /// source connects, reconnects and keeps its token fresh by itself, asking `credentials`.
    func events(for userID: UUID, credentials: @escaping @Sendable () async -> Credentials?) -> AsyncStream<PokeEvent>
}
