import Foundation
import HopeSyncLocking
import HopeSyncSQLite

/// The store's mutable state: the clock, guarded by the pool's writer; the observers and the
/// write handler, by their own locks.
final class StoreState: @unchecked Sendable {
    var clock: HybridClock
    let wallClock: @Sendable () -> Int64
    /// The tables the writer's committed transactions changed, not yet told to observers.
    let changes: CommittedChanges
    /// Where observers fetch after a commit: off the writing thread, one fetch at a time, so
    /// observers hold one reader connection between them and leave the other to the app.
    let observationQueue = DispatchQueue(label: "hope-sync.observation", qos: .userInitiated)

    private let observers = Locked<[UUID: StoreObserver]>([:])
    private let writeHandler = Locked<(@Sendable () -> Void)?>(nil)

    init(clock: HybridClock, wallClock: @escaping @Sendable () -> Int64, changes: CommittedChanges) {
        self.clock = clock
        self.wallClock = wallClock
        self.changes = changes
    }

    func nextStamp() -> Int64 { clock.next(wallMs: wallClock()) }

    /// A stamp for a write over a row whose newest stamp is `seen` (see ``HybridClock``).
    func nextStamp(after seen: Int64?) -> Int64 { clock.next(after: seen, wallMs: wallClock()) }

    /// Now, as the server's clock reads it, as far as this device knows: for values that say
    /// when (a soft delete's `deleted_ms`).
    func now() -> Int64 { clock.physical(wallMs: wallClock()) }

    var localWriteHandler: (@Sendable () -> Void)? {
        get { writeHandler.value }
        set { writeHandler.value = newValue }
    }

    func addObserver(_ id: UUID, _ observer: StoreObserver) {
        observers.withLock { $0[id] = observer }
    }

    func removeObserver(_ id: UUID) {
        _ = observers.withLock { $0.removeValue(forKey: id) }
    }

    var observerCount: Int { observers.withLock { $0.count } }

    /// Tells the observers what the commits since the last call changed; each re-runs only if
    /// it read one of those tables. Called after each write, page or list change commits.
    func notifyObservers() {
        let changed = changes.take()
        guard !changed.isEmpty else { return }
        for observer in observers.withLock({ Array($0.values) }) { observer.databaseChanged(changed) }
    }

    func finishObservers() {
        let all = observers.withLock { observers in
            defer { observers.removeAll() }
            return Array(observers.values)
        }
        for observer in all { observer.finish() }
    }
}
