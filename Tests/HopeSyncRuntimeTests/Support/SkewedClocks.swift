import Foundation
import HopeSync
import HopeSyncTestSupport

/// Wall clocks for the randomized runs' devices, against a server clock of its own: most a
/// little off the server's, some reset (to 1970, 2000, or before 1970: an RTC that lost its
/// time), some days ahead (more than the server takes).
enum DeviceClockKind: CaseIterable {
    case near, reset, daysAhead

    static func pick(_ random: inout SeededGenerator) -> DeviceClockKind {
        switch random.below(8) {
        case 0, 1: .reset
        case 2: .daysAhead
        default: .near
        }
    }

    func clock(server: ManualClock, _ random: inout SeededGenerator) -> ManualClock {
        let jitter = Int64(random.below(3_600_000))
        switch self {
        case .near: return ManualClock(server.now + jitter)
        case .reset: return ManualClock([0, 946_684_800_000, -1_000_000_000_000][random.below(3)] + jitter)
        case .daysAhead: return ManualClock(server.now + Int64(2 + random.below(4)) * 86_400_000 + jitter)
        }
    }

    /// A device days ahead whose writes were made before it ever heard the server's time has
    /// them made again once it does (they were never taken): the per-column oracle reads
    /// acknowledged stamps, so the runs give such a device its first sync before it writes.
    /// (Tests/HopeSyncEndToEndTests/ClockTests covers the writes made before.)
    var syncsBeforeWriting: Bool { self == .daysAhead }
}
