import Foundation

extension Duration {
    /// The duration in seconds, for dates and timers that count in them.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
