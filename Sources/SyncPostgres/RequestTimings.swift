import Dispatch
import Foundation

/// Time a ``PostgresTransport`` spends, summed over its requests: waiting for the server
/// (the whole transaction, rows received) and reading the rows into values. For benchmarks and
/// tuning; a transport without one counts nothing.
public final class RequestTimings: @unchecked Sendable {
    private let lock = NSLock()
    private var nanoseconds: [Part: UInt64] = [:]

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
        Double(lock.withLock { nanoseconds[part] ?? 0 }) / 1e9
    }

    public func reset() {
        lock.withLock { nanoseconds = [:] }
    }

    fileprivate func add(_ part: Part, since start: UInt64) {
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        lock.withLock { nanoseconds[part, default: 0] += elapsed }
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
