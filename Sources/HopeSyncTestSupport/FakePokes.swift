import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel

/// A poke source for tests: pokes sent by hand (``send(_:to:)``), or for every write a
/// ``PokingTransport`` passes on (``written(_:serverSeq:by:)``), through faults drawn from a
/// seed: pokes lost, late or doubled, and connections that drop (pokes meanwhile are lost)
/// and come back.
package final class FakePokes: PokeSource, Sendable {
    package struct Faults: Sendable {
        /// The chance a poke is lost.
        package var drop: Double
        /// The chance a poke comes twice.
        package var duplicate: Double
        /// How late a poke comes, in milliseconds (drawn from the range).
        package var delay: ClosedRange<Int>
        /// The chance, at each poke, that the connection drops; it comes back after a delay.
        package var disconnect: Double

        package init(drop: Double = 0, duplicate: Double = 0, delay: ClosedRange<Int> = 0...0, disconnect: Double = 0) {
            (self.drop, self.duplicate, self.delay, self.disconnect) = (drop, duplicate, delay, disconnect)
        }
    }

    private struct State {
        var listeners: [UUID: [UUID: AsyncStream<PokeEvent>.Continuation]] = [:]
        var disconnected: Set<UUID> = []
        var random: SeededGenerator
        var faults: Faults
        var sent = 0
        var announced = 0
    }

    private let state: Locked<State>
    private let connectAtOnce: Bool
    package let announcesWrites: Bool

    /// - Parameters:
    ///   - connectAtOnce: a new listener hears `.connected` first.
    ///   - announcesWrites: the engines announce their pushes themselves, as Realtime's client
    ///     broadcast lets them (``announce(_:for:)``), and ``PokingTransport`` leaves those
    ///     pushes unpoked, as the generated triggers do.
    package init(seed: UInt64 = 1, faults: Faults = Faults(), connectAtOnce: Bool = true, announcesWrites: Bool = false) {
        state = Locked(State(random: SeededGenerator(seed: seed), faults: faults))
        self.connectAtOnce = connectAtOnce
        self.announcesWrites = announcesWrites
    }

    /// A device's own poke: through the same faults as the server's, while `user` is connected.
    package func announce(_ poke: PokeEvent, for userID: UUID) -> Bool {
        let connected = state.withLock { state in
            guard announcesWrites, !state.disconnected.contains(userID) else { return false }
            state.announced += 1
            return true
        }
        guard connected else { return false }
        written(poke.table ?? "", serverSeq: poke.serverSeq, by: userID)
        return true
    }

    /// Pokes the engines announced themselves so far.
    package var announcedCount: Int { state.withLock { $0.announced } }

    package func events(for userID: UUID, credentials: @escaping @Sendable () async -> Credentials?) -> AsyncStream<PokeEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PokeEvent.self)
        let id = UUID()
        state.withLock { $0.listeners[userID, default: [:]][id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.listeners[userID]?.removeValue(forKey: id) }
        }
        if connectAtOnce { continuation.yield(.connected) }
        return stream
    }

    package func setFaults(_ faults: Faults) {
        state.withLock { $0.faults = faults }
    }

    /// How many engines listen for `user` now.
    package func listeners(of user: UUID) -> Int {
        state.withLock { $0.listeners[user]?.count ?? 0 }
    }

    /// Pokes delivered so far (after the faults).
    package var sentCount: Int { state.withLock { $0.sent } }

    /// `event` to every listener of `user`, as it is, now.
    package func send(_ event: PokeEvent, to user: UUID) {
        let listeners = state.withLock { state in
            if event.kind == .poke { state.sent += 1 }
            return Array(state.listeners[user]?.values ?? [:].values)
        }
        for listener in listeners { listener.yield(event) }
    }

    /// The server wrote rows of `table` for `user`: a poke, through the faults.
    package func written(_ table: String, serverSeq: Int64?, by user: UUID) {
        enum Plan {
            case lost
            case deliver(copies: Int, delay: Int)
            case drop(reconnectAfter: Int)
        }
        let plan: Plan = state.withLock { state in
            guard !state.disconnected.contains(user) else { return .lost }
            let faults = state.faults
            let delay = faults.delay.lowerBound + state.random.below(faults.delay.count)
            if state.random.chance(faults.disconnect) {
                state.disconnected.insert(user)
                return .drop(reconnectAfter: delay)
            }
            if state.random.chance(faults.drop) { return .lost }
            return .deliver(copies: state.random.chance(faults.duplicate) ? 2 : 1, delay: delay)
        }
        switch plan {
        case .lost:
            break
        case .deliver(let copies, let delay):
            later(delay) {
                for _ in 0..<copies { self.send(.poke(table: table, serverSeq: serverSeq), to: user) }
            }
        case .drop(let delay):
            send(.disconnected, to: user)
            later(delay) {
                self.state.withLock { _ = $0.disconnected.remove(user) }
                self.send(.connected, to: user)
            }
        }
    }

    private func later(_ milliseconds: Int, _ body: @escaping @Sendable () -> Void) {
        guard milliseconds > 0 else { return body() }
        Task {
            try? await Task.sleep(for: .milliseconds(milliseconds))
            body()
        }
    }
}

extension SeededGenerator {
    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        probability > 0 && Double(next() % 1_000_000) < probability * 1_000_000
    }
}

/// Passes every request on, and pokes the writer's devices through ``FakePokes`` after each
/// write the server took, as the generated triggers do after a statement: the table, and the
/// highest server_seq of the rows the answer holds.
package struct PokingTransport: ForwardingTransport {
    package let forwardee: any SyncTransport
    package let pokes: FakePokes

    package init(_ forwardee: any SyncTransport, pokes: FakePokes) {
        self.forwardee = forwardee
        self.pokes = pokes
    }

    package func stating(schemaVersion: Int) -> any SyncTransport {
        PokingTransport(forwardee.stating(schemaVersion: schemaVersion), pokes: pokes)
    }

    @discardableResult
    package func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try await upsert(rows, into: table, as: user, announcingPokes: false)
    }

    /// A push whose device announces it itself is not poked here (the triggers' gate).
    @discardableResult
    package func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials, announcingPokes: Bool)
        async throws(SyncError)
        -> UpsertedRows
    {
        let answer = try await forwardee.upsert(rows, into: table, as: user, announcingPokes: announcingPokes)
        if !answer.rows.isEmpty, !announcingPokes {
            pokes.written(table.name, serverSeq: answer.rows.highestServerSeq, by: user.userID)
        }
        return answer
    }

    package func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        let rows = try await forwardee.guardedUpdate(
            table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
        if !rows.isEmpty { pokes.written(table.name, serverSeq: rows.highestServerSeq, by: user.userID) }
        return rows
    }
}
