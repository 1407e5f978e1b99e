import Foundation
import SyncTestSupport
import Testing

@testable import SyncRuntime

/// The pages a pull fetches ahead of its apply: bounded, taken together, ended in order.
struct PageBufferTests {
    static func page(_ seq: Int64) -> PulledPage {
        PulledPage(rows: [], undecodable: [], receivedCount: 1, lastServerSeq: seq)
    }

    @Test func theApplyTakesEveryPageThatArrivedAndThenTheEnd() async throws {
        let buffer = PageBuffer<PulledPage>(capacity: 4)
        for seq in Int64(1)...3 { await buffer.put(Self.page(seq)) }
        buffer.finish(nil)
        #expect(try await buffer.takeAll().map(\.lastServerSeq) == [1, 2, 3])
        #expect(try await buffer.takeAll().isEmpty)
    }

    @Test func theFetchingWaitsWhileCapacityPagesWait() async throws {
        let buffer = PageBuffer<PulledPage>(capacity: 2)
        let put = Locked(0)
        let producer = Task {
            for seq in 1...5 {
                await buffer.put(Self.page(Int64(seq)))
                put.withLock { $0 = seq }
            }
            buffer.finish(nil)
        }
        #expect(await eventually { put.value == 2 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(put.value == 2) // the third page waits for room
        var taken: [Int64?] = []
        while true {
            let pages = try await buffer.takeAll()
            if pages.isEmpty { break }
            #expect(pages.count <= 2)
            taken += pages.map(\.lastServerSeq)
        }
        await producer.value
        #expect(taken == [1, 2, 3, 4, 5])
    }

    @Test func anErrorComesAfterThePagesBeforeIt() async throws {
        let buffer = PageBuffer<PulledPage>(capacity: 4)
        await buffer.put(Self.page(1))
        buffer.finish(SyncError(.connectivity, "lost"))
        #expect(try await buffer.takeAll().count == 1)
        let error = await #expect(throws: SyncError.self) { try await buffer.takeAll() }
        #expect(error?.code == .connectivity)
    }

    @Test func aClosedBufferReleasesAWaitingFetch() async {
        let buffer = PageBuffer<PulledPage>(capacity: 1)
        await buffer.put(Self.page(1))
        let producer = Task { await buffer.put(Self.page(2)) }
        buffer.finish(SyncError(.cancelled, "stopped"))
        await producer.value // returns: nothing waits forever once the apply is gone
    }
}
