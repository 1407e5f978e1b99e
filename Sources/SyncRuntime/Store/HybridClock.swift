import Foundation

/// The stamp every local write gets: the wall clock, but never behind the last stamp made here
/// nor the largest stamp seen from the server, so a device with a slow clock still writes
/// "after" what it has seen, and two writes on one device never share a stamp.
///
/// A stamp seen from the server counts only up to a day past this device's wall clock: one device
/// whose clock is far ahead (or a row stamped `Int64.max`) cannot drag every device's clock along
/// for good. The server refuses writes stamped more than a day past its own clock, so such stamps
/// come only from rows written before that rule.
struct HybridClock {
    /// How far past the wall clock a seen stamp may move this clock.
    static let maxAheadMs: Int64 = 86_400_000

    private(set) var last: Int64

    init(last: Int64) {
        self.last = last
    }

    /// Resumed from the largest stamp stored, counted no further than a day past the wall clock.
    init(resumingAt stored: Int64, wallMs: Int64) {
        self.init(last: min(stored, wallMs + Self.maxAheadMs))
    }

    mutating func next(wallMs: Int64) -> Int64 {
        last = max(wallMs, last < WriteStamp.maxMs ? last + 1 : last)
        return last
    }

    mutating func observe(_ remote: Int64, wallMs: Int64) {
        last = max(last, min(remote, wallMs + Self.maxAheadMs))
    }
}

extension SyncStore {
    /// Milliseconds since 1970 from the system clock: the default wall clock.
    public static let systemClock: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))
    }
}
