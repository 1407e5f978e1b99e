import Foundation
import HopeSchema
import HopeSyncSQLite
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@testable import HopeSync

/// Observation after GRDB's ValueObservation: an observer re-runs only for a commit to a table
/// it read, off the writing connection, coalesced; reads run beside the writer (WAL).
/// Behaviour only: how many fetches ran, what they saw, never how long anything took.
@Suite struct ObservationTests {
    let user = UUID()

    func openStore() throws -> SyncStore {
        try SyncStore(path: TestDevice.temporaryPath("observe"), schema: HopeFixture.app(), userID: user, deviceID: "a")
    }

    /// Counts the runs of `query` and observes it; the first value is already in the stream.
    func observe<T: Sendable & Equatable>(
        _ store: SyncStore, _ runs: Locked<Int>, _ query: @escaping @Sendable (StoreReader) throws -> T
    ) -> AsyncThrowingStream<T, any Error>.AsyncIterator {
        store.observe { reader in
            runs.withLock { $0 += 1 }
            return try query(reader)
        }.makeAsyncIterator()
    }

    /// Waits for every fetch the commits so far started, and for those they started in turn.
    func drain(_ store: SyncStore) {
        for _ in 0..<3 { store.state.observationQueue.sync {} }
    }

    /// Holds the observers' fetches back until `body` returns, so what `body` commits lands
    /// while a fetch is pending.
    func withObserversHeld<T>(_ store: SyncStore, _ body: () async throws -> T) async rethrows -> T {
        let gate = DispatchSemaphore(value: 0)
        store.state.observationQueue.async { gate.wait() }
        defer { gate.signal() }
        return try await body()
    }

    @Test func aCommitToAnotherTableRunsNoFetch() async throws {
        let store = try openStore()
        let runs = Locked(0)
        var activities = observe(store, runs) { try $0.fetchCount(Activity.self) }
        #expect(try await activities.next() == 0)
        try await store.write { try $0.save(Session(activityId: UUID(), startedMs: 1, endedMs: 2)) }
        drain(store)
        #expect(runs.value == 1)
        try await store.write { try $0.save(Activity(name: "Work")) }
        #expect(try await activities.next() == 1)
        #expect(runs.value == 2)
    }

    @Test func aBurstOfCommitsIsCoalesced() async throws {
        let store = try openStore()
        let runs = Locked(0)
        var count = observe(store, runs) { try $0.fetchCount(Activity.self) }
        #expect(try await count.next() == 0)
        try await withObserversHeld(store) {
            for index in 0..<20 { try await store.write { try $0.save(Activity(name: "A\(index)")) } }
        }
        drain(store)
        // The first fetch, the one the first commit started, and one for the commits it may
        // have missed: never one per commit.
        #expect(runs.value <= 3)
        #expect(try await count.next() == 20)
    }

    @Test func pulledPagesPublishAtMostOncePerPageAndOnlyToTheirTable() async throws {
        let server = InMemoryServer.hope()
        var configuration = TestDevice.configuration
        configuration.pageSize = 7
        let a = try TestDevice("a", user: user, transport: server)
        let b = try TestDevice("b", user: user, transport: server, configuration: configuration)
        try await a.store.write { tx in
            for start in 0..<100 { try tx.save(Session(activityId: UUID(), startedMs: Int64(start), endedMs: Int64(start) + 1)) }
        }
        try await a.sync()
        let (sessionRuns, activityRuns) = (Locked(0), Locked(0))
        var sessions = observe(b.store, sessionRuns) { try $0.fetchCount(Session.self) }
        var activities = observe(b.store, activityRuns) { try $0.fetchCount(Activity.self) }
        #expect(try await sessions.next() == 0)
        #expect(try await activities.next() == 0)
        #expect(try await b.sync().pulled == 100)
        drain(b.store)
        #expect(sessionRuns.value - 1 <= 15) // 100 rows in pages of 7
        #expect(activityRuns.value == 1)
        #expect(try await sessions.next() == 100)

        try await a.store.write { tx in
            for start in 100..<150 { try tx.save(Session(activityId: UUID(), startedMs: Int64(start), endedMs: Int64(start) + 1)) }
        }
        try await a.sync()
        let before = sessionRuns.value
        let pulled = try await withObserversHeld(b.store) { try await b.sync().pulled }
        #expect(pulled == 50)
        drain(b.store)
        #expect(sessionRuns.value - before <= 2) // 8 pages
        #expect(activityRuns.value == 1)
        #expect(try await sessions.next() == 150)
        _ = activities
    }

    @Test func anEqualValueIsNotEmittedAgain() async throws {
        let store = try openStore()
        var activity = try await store.write { try $0.save(Activity(name: "A")) }
        let runs = Locked(0)
        var count = observe(store, runs) { try $0.fetchCount(Activity.self) }
        #expect(try await count.next() == 1)
        activity.name = "B"
        try await store.write { [activity] in try $0.save(activity) }
        drain(store)
        #expect(runs.value == 2) // re-run for the rename, which left the count as it was
        try await store.write { try $0.save(Activity(name: "C")) }
        #expect(try await count.next() == 2)
    }

    @Test func aReadRunsWhileAWriteIsOpen() async throws {
        let store = try openStore()
        try await store.write { try $0.save(Activity(name: "Committed")) }
        let release = DispatchSemaphore(value: 0)
        let (writeIsOpen, finished) = (Locked(false), Locked(false))
        // A thread of its own: it blocks, and must not wait for a worker of a pool the test shares.
        Thread.detachNewThread {
            try? store.write { tx in
                try tx.save(Activity(name: "Uncommitted"))
                writeIsOpen.value = true
                // Released by the test once it has read; the timeout only keeps a failing
                // (waiting) read from hanging the suite. Generous: the suite's synchronous
                // PostgreSQL tests occupy cooperative threads, and on two loaded cores the reads'
                // continuations have waited over 30 s for one to resume on.
                _ = release.wait(timeout: .now() + 120)
                writeIsOpen.value = false
            }
            finished.value = true
        }
        // Waited for without blocking a cooperative thread: on two cores a blocked one can keep
        // the reads' continuations from resuming until the write's timeout.
        while !writeIsOpen.value { try await Task.sleep(for: .milliseconds(5)) }
        let seen = try await store.read { try $0.fetchAll(Activity.self, orderBy: "name").map(\.name) }
        let seenAsync = try await store.read { try $0.fetchAll(Activity.self, orderBy: "name").map(\.name) }
        let openThroughout = writeIsOpen.value
        release.signal()
        while !finished.value { try await Task.sleep(for: .milliseconds(5)) }
        #expect(openThroughout)
        #expect(seen == ["Committed"] && seenAsync == ["Committed"])
        #expect(try await store.read { try $0.fetchCount(Activity.self) } == 2)
    }

    @Test func readsSeeCommittedWritesAndAWriteSeesItsOwn() async throws {
        let store = try openStore()
        for index in 0..<5 {
            try await store.write { try $0.save(Activity(name: "A\(index)")) }
            #expect(try await store.read { try $0.fetchCount(Activity.self) } == index + 1)
            #expect(try await store.read { try $0.fetchCount(Activity.self) } == index + 1)
        }
        // Inside a write, a read (the writer's reader, or the store's) sees the write's own rows.
        let inside = try await store.write { tx in
            try tx.save(Activity(name: "B"))
            return (try tx.fetchCount(Activity.self), try store.read { try $0.fetchCount(Activity.self) })
        }
        #expect(inside == (6, 6))
        try await store.write { tx in try tx.save(Activity(name: "C")) }
        #expect(try await store.read { try $0.fetchCount(Activity.self) } == 7)
    }

    @Test func observationStopsWhenIterationEnds() async throws {
        let store = try openStore()
        let runs = Locked(0)
        let first = Task {
            for try await count in store.observe({ reader in
                runs.withLock { $0 += 1 }
                return try reader.fetchCount(Activity.self)
            }) {
                return count
            }
            return -1
        }
        #expect(try await first.value == 0)
        // The stream ended with the loop; its observer leaves the store's list.
        #expect(await eventually { store.state.observerCount == 0 })
        try await store.write { try $0.save(Activity(name: "A")) }
        drain(store)
        #expect(runs.value == 1)
    }

    @Test func clearingLocalDataReachesObservers() async throws {
        let store = try openStore()
        try await store.write { tx in for index in 0..<3 { try tx.save(Activity(name: "A\(index)")) } }
        let seen = Locked<[Int]>([])
        let watching = Task {
            for try await count in store.observe({ try $0.fetchCount(Activity.self) }) { seen.withLock { $0.append(count) } }
        }
        defer { watching.cancel() }
        #expect(await eventually { seen.value == [3] })
        // `DELETE FROM activities` with no WHERE: SQLite's truncate would skip the update hook.
        try store.clearLocalData()
        #expect(await eventually { seen.value.last == 0 }) // fails in time rather than waiting forever
    }

    @Test func closingEndsObservationsAndReads() async throws {
        let store = try openStore()
        var count = store.observe { try $0.fetchCount(Activity.self) }.makeAsyncIterator()
        #expect(try await count.next() == 0)
        store.close()
        #expect(try await count.next() == nil)
        await #expect(throws: SyncError.self) { try await store.read { try $0.fetchCount(Activity.self) } }
    }
}
