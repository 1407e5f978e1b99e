import Foundation

/// Where the engine hears that the server has something new for its user: a Realtime channel
/// (``RealtimePokes``) on devices that can hold one, a fake in tests. A poke only says "pull
/// now"; rows still arrive by the pull alone, so a lost poke costs time, never a row.
@_spi(Transport) public protocol PokeSource: Sendable {
    /// What happens for `userID`, until the stream's consumer stops (which disconnects). The
    /// source connects, reconnects and keeps its token fresh by itself, asking `credentials`.
    func events(for userID: UUID, credentials: @escaping @Sendable () async -> Credentials?) -> AsyncStream<PokeEvent>

    /// Whether this source can tell the user's other devices about this device's writes itself
    /// (Realtime's client broadcast). While it is connected, the engine then pushes with
    /// ``SyncTransport/upsert(_:into:as:announcingPokes:)``, so the server skips its own poke (a
    /// third of a one-row write's cost), and announces every push the server took. False unless
    /// a source says otherwise.
    var announcesWrites: Bool { get }

    /// Tells `userID`'s other devices that the server took a write of this device's (`poke`:
    /// the table and the highest server_seq it reached). False when it could not (not joined
    /// at the moment): those devices then see the write at their next pull.
    func announce(_ poke: PokeEvent, for userID: UUID) -> Bool
}

extension PokeSource {
    public var announcesWrites: Bool { false }

    public func announce(_ poke: PokeEvent, for userID: UUID) -> Bool { false }
}
