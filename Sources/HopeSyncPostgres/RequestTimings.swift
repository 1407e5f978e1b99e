import Dispatch
import Foundation
import HopeSyncLocking

/// Time a ``PostgresTransport`` spends, summed over its requests: waiting for the server
/// (the whole transaction, rows received) and reading the rows into values. For benchmarks and
/// tuning; a transport without one counts nothing.
public final class RequestTimings: Sendable {
    private let nanoseconds = Locked<[Part: UInt64]>([:])

    public enum Part: Sendable {
        /// From `begin` to `commit`, the rows in libpq's buffers as text; a pulled page is
        /// read into values inside it (that part is also counted as `decode`).
        case query
        /// From libpq's text to the runtime's values.
        case decode
    }

    public init() {}

    /// The seconds counted for `part` so far.
    public func seconds(_ part: Part) -> Double {
        Double(nanoseconds.withLock { $0[part] ?? 0 }) / 1e9
    }

    public func reset() {
        nanoseconds.value = [:]
    }

    fileprivate func add(_ part: Part, since start: UInt64) {
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        nanoseconds.withLock { $0[part, default: 0] += elapsed }
    }
}

extension Optional where Wrapped == RequestTimings {
    /// Runs `body`, counting its time under `part` when there are timings to count in.
    func measure<T, E: Error>(_ part: RequestTimings.Part, _ body: () throws(E) -> T) throws(E) -> T {
        guard let timings = self else { return try body() }
        let start = DispatchTime.now().uptimeNanoseconds
        defer { timings.add(part, since: start) }
        return try body()
    }
}
