import Foundation
import Testing

@testable import HopeSync

/// The device's hybrid logical clock: the wall clock corrected by the server's, never behind a
/// stamp made or seen, never dragged past what the server takes.
@Suite struct HybridClockTests {
    let day = HybridClock.maxAheadMs
    let server: Int64 = 1_800_000_000_000

    @Test func aClockFarBehindStampsAtTheServersTimeOnceItKnowsIt() {
        var clock = HybridClock(last: 0)
        #expect(clock.next(wallMs: 5) == 5)
        let moved = clock.observeServerTime(server, wallMs: 5)
        #expect(moved)
        #expect(clock.next(wallMs: 6) == server + 1)
    }

    @Test func anOffsetWithinTheMeasuresErrorIsNotApplied() {
        var clock = HybridClock(last: 0)
        let moved = clock.observeServerTime(server - 3_000, wallMs: server)
        #expect(!moved)
        #expect(clock.next(wallMs: server) == server)
    }

    @Test func aStampSeenCountsOnlyUpToADayPastTheServerLessTheRoomForWrites() {
        var clock = HybridClock(last: 0)
        _ = clock.observeServerTime(server, wallMs: server + 2 * 3_600_000) // this device runs two hours ahead
        clock.observe(server + 30 * day, wallMs: server + 2 * 3_600_000)
        #expect(clock.last == server + day - HybridClock.headroomMs)
        #expect(clock.next(wallMs: server + 2 * 3_600_000) < server + day)
    }

    @Test func anEditAfterSeeingARowIsStampedPastIt() {
        var clock = HybridClock(last: 0)
        _ = clock.observeServerTime(server, wallMs: 0)
        #expect(clock.next(after: server + 5_000, wallMs: 0) == server + 5_001)
        #expect(clock.next(wallMs: 0) == server + 5_002)
    }

    @Test func aResumedClockKeepsItsOffsetAndLimit() {
        let stored = HybridClock.StoredStamps(recorded: 0, newest: server + 40 * day, newestOwn: server + 5)
        let clock = HybridClock(resumingAt: stored, serverOffsetMs: server, wallMs: 0)
        #expect(clock.last == server + day - HybridClock.headroomMs)
        #expect(clock.physical(wallMs: 10) == server + 10)
        // Its own stamps, recorded past the limit, are never made again.
        let past = HybridClock.StoredStamps(recorded: server + day, newest: server + 40 * day, newestOwn: server + day - 1)
        #expect(HybridClock(resumingAt: past, serverOffsetMs: server, wallMs: 0).last == server + day)
    }
}
