import Foundation
import HopeSyncTestSupport
import Testing

@testable import HopeSync

/// The store's async reads and writes wait for a connection without holding a thread, and run
/// SQLite on the connections' own threads: however many wait, Swift's cooperative threads (as
/// many as cores) stay free for every other task.
@Suite struct SuspendingAccessTests {
    @Test func tasksKeepRunningWhileManyAccessesWaitForALongWrite() async throws {
        let store = try SyncStore(
            path: TestDevice.temporaryPath("suspending"), schema: HopeFixture.app(), userID: UUID(), deviceID: "device-a",
            wallClock: ManualClock().read)
        defer { store.close() }
        let ticks = Locked(0)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
                ticks.withLock { $0 += 1 }
            }
        }
        defer { ticker.cancel() }

        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        // Holds the writer until the ticker ticked 5 times, counted from 0.3 s in, by when every
        // access below waits (for the writer, or for one of the two readers, each held 0.2 s);
        // 15 s at most. A ticker with no thread to run on never gets there.
        let longWrite = Task {
            try await store.write { _ in
                startedContinuation.yield()
                Thread.sleep(forTimeInterval: 0.3)
                let before = ticks.value
                let deadline = Date(timeIntervalSinceNow: 15)
                while ticks.value - before < 5, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                return ticks.value - before
            }
        }
        for await _ in started { break }
        let waiting = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<waiting {
                group.addTask { try await store.write { _ in } }
                group.addTask { try await store.read { _ in Thread.sleep(forTimeInterval: 0.2) } }
            }
            let ticked = try await longWrite.value
            // None when every cooperative thread waits (the write then holds the writer 15 s).
            #expect(ticked >= 5, "the ticking task ran \(ticked) times while the write held the writer")
            try await group.waitForAll()
        }
    }
}
