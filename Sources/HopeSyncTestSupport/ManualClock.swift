import Foundation

/// A device's wall clock (milliseconds since 1970) that tests move by hand.
public final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var ms: Int64

    /// A fixed start in 2027: the in-memory server has no clock of its own to be ahead of.
    public static let fixedStart: Int64 = 1_800_000_000_000
    /// The real time an hour ago: PostgreSQL refuses stamps more than a day ahead of its clock.
    public static var anHourAgo: Int64 { Int64(Date().timeIntervalSince1970 * 1_000) - 3_600_000 }

    public init(_ ms: Int64 = ManualClock.fixedStart) {
        self.ms = ms
    }

    public var now: Int64 {
        get { lock.withLock { ms } }
        set { lock.withLock { ms = newValue } }
    }

    public func advance(_ delta: Int64) {
        lock.withLock { ms += delta }
    }

    public var read: @Sendable () -> Int64 { { self.now } }
}
