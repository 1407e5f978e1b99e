import Foundation

extension Duration {
    /// The wait after `failures` failures in a row: `first` after one, doubling with each
    /// further one, never past `ceiling`. The engine's backoff, Realtime's reconnection and a
    /// file's retry all wait so.
    static func doubling(from first: Duration, afterFailures failures: Int, upTo ceiling: Duration) -> Duration {
        min(first * (1 << max(0, min(failures - 1, 30))), ceiling)
    }
}
