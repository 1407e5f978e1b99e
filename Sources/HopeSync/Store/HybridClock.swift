import Foundation

/// The stamp every local write gets: a hybrid logical clock. Its physical part is the wall clock
/// corrected by how far it is off the server's (measured from the server's answers), so a device
/// whose clock reset to 1970, or runs a week ahead, still stamps about the server's time; its
/// logical part keeps stamps past every stamp made here and every one seen from the server, so an
/// edit made after seeing a row wins over that row, and two writes here never share a stamp.
///
/// A stamp seen from the server moves the clock only up to ``limit(wallMs:)``: a day past the
/// server's clock, less an hour of room. The server refuses a claim more than a day past its clock
/// (22008), so nothing past the limit comes from a write the server took under that rule; one row
/// from before it (or from a server whose clock jumped back) cannot drag this device's clock to
/// where the server would refuse its writes, and the hour leaves room for a burst of writes.
package struct HybridClock {
    /// How far past the server's clock the server takes a claim (the in-memory server's rule too).
    package static let maxAheadMs: Int64 = 86_400_000
    /// Room kept under the server's limit for this device's own writes.
    static let headroomMs: Int64 = 3_600_000
    /// A measured offset smaller than this is the measure's own error (the `Date` header counts
    /// seconds, and the answer takes time to arrive): such a clock is used as it is.
    static let toleranceMs: Int64 = 10_000

    private(set) var last: Int64
    /// The server's clock minus this device's wall clock, as last measured; nil until the server
    /// has said its time.
    private(set) var serverOffsetMs: Int64?

    init(last: Int64, serverOffsetMs: Int64? = nil) {
        self.last = last
        self.serverOffsetMs = serverOffsetMs
    }

    /// What a store holds of the stamps its clock made and saw.
    struct StoredStamps {
        /// The clock as last recorded.
        var recorded: Int64
        /// The newest row pair of all.
        var newest: Int64 = 0
        /// The newest row pair this device wrote.
        var newestOwn: Int64 = 0
    }

    /// Resumed past every stamp this device made, and every one it saw as far as the limit.
    init(resumingAt stored: StoredStamps, serverOffsetMs: Int64?, wallMs: Int64) {
        self.init(last: 0, serverOffsetMs: serverOffsetMs)
        last = max(min(stored.newest, limit(wallMs: wallMs)), stored.recorded, stored.newestOwn)
    }

    /// Now, as the server's clock reads it, as far as this device knows.
    func physical(wallMs: Int64) -> Int64 {
        let offset = serverOffsetMs.map { abs($0) < Self.toleranceMs ? 0 : $0 } ?? 0
        return min(max(wallMs.addingReportingOverflow(offset).partialValue, 0), WriteStamp.maxMs)
    }

    /// The latest stamp a stamp seen from the server may move this clock to.
    func limit(wallMs: Int64) -> Int64 {
        min(physical(wallMs: wallMs) + Self.maxAheadMs - Self.headroomMs, WriteStamp.maxMs)
    }

    mutating func next(wallMs: Int64) -> Int64 {
        last = max(physical(wallMs: wallMs), last < WriteStamp.maxMs ? last + 1 : last)
        return last
    }

    /// A stamp for a write over a row whose newest stamp is `seen`: past it, as far as the
    /// limit lets a stamp seen from the server count.
    mutating func next(after seen: Int64?, wallMs: Int64) -> Int64 {
        if let seen { observe(seen, wallMs: wallMs) }
        return next(wallMs: wallMs)
    }

    mutating func observe(_ remote: Int64, wallMs: Int64) {
        last = max(last, min(remote, limit(wallMs: wallMs)))
    }

    /// The server said its clock read `serverMs` when this device's read `wallMs`. Returns
    /// whether the offset this clock uses changed.
    mutating func observeServerTime(_ serverMs: Int64, wallMs: Int64) -> Bool {
        let before = physical(wallMs: wallMs)
        serverOffsetMs = serverMs.subtractingReportingOverflow(wallMs).partialValue
        return physical(wallMs: wallMs) != before
    }

    /// Where this device's own stamps start to be more than the server takes: a day past the
    /// server's clock, less a minute for the measure's error.
    func refusalLine(wallMs: Int64) -> Int64 {
        physical(wallMs: wallMs) + Self.maxAheadMs - 60_000
    }

    /// After this device's stamps past the refusal line were refused: the clock no longer counts
    /// them (the server never took them), and goes on from `newestKept`, the newest stamp the
    /// device holds that the server takes, so the next stamps are the server's time, or just past
    /// what the device holds.
    mutating func forgetStamps(after newestKept: Int64) {
        last = min(last, newestKept)
    }
}
