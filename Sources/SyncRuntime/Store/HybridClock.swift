import Foundation

/// The stamp every local write gets: the wall clock, but never behind the last stamp made here
/// nor the largest stamp seen from the server, so a device with a slow clock still writes
/// "after" what it has seen, and two writes on one device never share a stamp.
struct HybridClock {
    private(set) var last: Int64

    init(last: Int64) {
        self.last = last
    }

    mutating func next(wallMs: Int64) -> Int64 {
        last = max(wallMs, last + 1)
        return last
    }

    mutating func observe(_ remote: Int64) {
        last = max(last, remote)
    }
}

extension SyncStore {
    /// Milliseconds since 1970 from the system clock: the default wall clock.
    public static let systemClock: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down))
    }
}
