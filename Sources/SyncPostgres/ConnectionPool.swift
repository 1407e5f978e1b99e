import Dispatch
import Foundation
import Postgres

/// Connections to one database, each lent to one request at a time. Concurrent requests get
/// connections of their own (up to `limit`; more wait their turn), so one request's wait on a
/// lock never holds up another's. A connection that failed at the connection level is closed,
/// never lent again; the next request connects afresh.
///
/// libpq calls block their thread, so requests run on a dispatch queue of their own, never on
/// Swift's cooperative threads (a request waiting on a row lock must not starve the tasks that
/// would release it).
final class ConnectionPool: @unchecked Sendable {
    private let url: String
    private let maximumIdle: Int
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var idle: [Connection] = []
    private static let queue = DispatchQueue(label: "SyncPostgres.requests", attributes: .concurrent)

    init(url: String, limit: Int) {
        self.url = url
        maximumIdle = max(1, limit)
        slots = DispatchSemaphore(value: max(1, limit))
    }

    /// Runs `body` with a connection of its own, off the cooperative threads. Cancelling the
    /// calling task cancels the statement running for it on the server (or, before it has a
    /// connection, keeps it from starting).
    func run<T: Sendable>(_ body: @escaping @Sendable (Connection) throws(PostgresError) -> T) async throws(PostgresError) -> T {
        let request = RunningRequest()
        let result: Result<T, PostgresError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Self.queue.async {
                    continuation.resume(returning: self.lend(body, request))
                }
            }
        } onCancel: {
            request.cancel()
        }
        return try result.get()
    }

    private func lend<T>(_ body: (Connection) throws(PostgresError) -> T, _ request: RunningRequest) -> Result<T, PostgresError> {
        slots.wait()
        defer { slots.signal() }
        guard !request.isCancelled else { return .failure(Self.cancelled) }
        let connection: Connection
        if let reused = lock.withLock({ idle.popLast() }) {
            connection = reused
        } else {
            // libpq reads a text that is neither a URI nor key=value pairs as a database name
            // on the local socket: say so rather than fail to connect somewhere unintended.
            guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") || url.contains("=") else {
                return .failure(
                    PostgresError(
                        sqlState: nil, message: "invalid URI: the connection string is not a postgresql:// URI or key=value pairs"))
            }
            do throws(PostgresError) {
                connection = try Connection(url: url)
            } catch {
                return .failure(error)
            }
        }
        request.start(on: connection)
        defer { request.finish() }
        if request.isCancelled {
            giveBack(connection)
            return .failure(Self.cancelled)
        }
        do throws(PostgresError) {
            let value = try body(connection)
            giveBack(connection)
            return .success(value)
        } catch {
            if !PostgresFailure.endsConnection(error) { giveBack(connection) }
            return .failure(error)
        }
    }

    /// What a request cancelled before its statement ran fails with (query_canceled).
    private static let cancelled = PostgresError(sqlState: "57014", message: "the request was cancelled")

    private func giveBack(_ connection: Connection) {
        lock.withLock {
            if idle.count < maximumIdle { idle.append(connection) }
        }
    }
}

/// The connection a request is running on, so another thread can cancel its statement.
private final class RunningRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: Connection?
    private var cancelled = false

    var isCancelled: Bool { lock.withLock { cancelled } }

    func start(on connection: Connection) {
        lock.withLock { self.connection = connection }
    }

    func finish() {
        lock.withLock { connection = nil }
    }

    func cancel() {
        let running = lock.withLock {
            cancelled = true
            return connection
        }
        running?.cancel()
    }
}
