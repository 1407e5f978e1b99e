import Foundation
import HopeSyncLocking
import HopeSyncSQLite

/// One observation's schedule, after GRDB's ValueObservation on a database pool (at table
/// granularity): each fetch records the tables it read, and a commit re-runs it only when it
/// changed one of them. Fetches after the first run on the store's observation queue, on a
/// reader connection, never on the thread that wrote. While a fetch runs, commits only mark it
/// stale: at most one fetch runs and one waits, however many commits or pages land meanwhile.
final class StoreObserver: Sendable {
    private struct Schedule {
        /// The tables the last fetch read. Until the first fetch ends: everything.
        var region = DatabaseRegion.fullDatabase
        /// The first fetch starts with the observation, so nothing starts a second one beside it.
        var isFetching = true
        /// What commits changed while a fetch ran: its snapshot may have come before them.
        var changedMeanwhile = DatabaseRegion()
        var isStopped = false
    }

    private let schedule = Locked(Schedule())
    /// Fetches and emits; returns the tables read, or nil when the observation has ended.
    private let fetch: @Sendable () -> DatabaseRegion?
    private let queue: DispatchQueue
    /// Ends the observation's stream (the store closed).
    let finish: @Sendable () -> Void

    init(queue: DispatchQueue, fetch: @escaping @Sendable () -> DatabaseRegion?, finish: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.fetch = fetch
        self.finish = finish
    }

    /// The first fetch, on the caller's thread, so the first value is there at once.
    func start() {
        completed(fetch())
    }

    /// Commits changed `changed`.
    func databaseChanged(_ changed: DatabaseRegion) {
        let fetchNow = schedule.withLock { schedule in
            if schedule.isStopped { return false }
            if schedule.isFetching {
                schedule.changedMeanwhile.formUnion(changed)
                return false
            }
            guard schedule.region.intersects(changed) else { return false }
            schedule.isFetching = true
            return true
        }
        if fetchNow { fetchLater() }
    }

    /// Iteration ended or the stream finished: no fetch starts after this.
    func stop() {
        schedule.withLock { $0.isStopped = true }
    }

    private func fetchLater() {
        queue.async {
            guard !self.schedule.withLock({ $0.isStopped }) else { return }
            self.completed(self.fetch())
        }
    }

    /// A fetch ended having read `read`. Fetches again when a commit it may have missed changed
    /// a table it read: a table it did not read cannot change its value, since the same data
    /// would take the query down the same path again.
    private func completed(_ read: DatabaseRegion?) {
        let again = schedule.withLock { schedule in
            guard let read, !schedule.isStopped else {
                schedule.isStopped = true
                return false
            }
            schedule.region = read
            schedule.isFetching = read.intersects(schedule.changedMeanwhile)
            schedule.changedMeanwhile = DatabaseRegion()
            return schedule.isFetching
        }
        if again { fetchLater() }
    }
}
