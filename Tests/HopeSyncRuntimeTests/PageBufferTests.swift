import Foundation
import HopeSyncTestSupport
import Testing

@_spi(Transport) @testable import HopeSync

/// The pages a pull fetches ahead of its apply: bounded, taken in order while ready, ended in order.
struct PageBufferTests {
    static func page(_ seq: Int64) -> PulledPage {
        PulledPage(rows: [], undecodable: [], receivedCount: 1, lastServerSeq: seq)
    }

    @Test func theApplyTakesEveryPageThatArrivedInOrderAndThenTheEnd() async throws {
        let buffer = PageBuffer<PulledPage>(capacity: 4)
        for seq in Int64(1)...3 { await buffer.put(Self.page(seq)) }
        #expect(try await buffer.waitForPage())
        #expect([buffer.takeReady(), buffer.takeReady()].map { $0?.lastServerSeq } == [1, 2])
        buffer.finish(nil)
        #expect(try await buffer.waitForPage()) // the page before the end
        #expect(buffer.takeReady()?.lastServerSeq == 3)
        #expect(buffer.takeReady() == nil)
        #expect(try await buffer.waitForPage() == false)
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
        while try await buffer.waitForPage() {
            var ready = 0
            while let page = buffer.takeReady() {
                ready += 1
                taken.append(page.lastServerSeq)
            }
            #expect(ready >= 1)
        }
        await producer.value
        #expect(taken == [1, 2, 3, 4, 5])
    }

    @Test func anErrorComesAfterThePagesBeforeIt() async throws {
        let buffer = PageBuffer<PulledPage>(capacity: 4)
        await buffer.put(Self.page(1))
        buffer.finish(SyncError(.connectivity, "lost"))
        #expect(try await buffer.waitForPage())
        #expect(buffer.takeReady()?.lastServerSeq == 1)
        let error = await #expect(throws: SyncError.self) { try await buffer.waitForPage() }
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
