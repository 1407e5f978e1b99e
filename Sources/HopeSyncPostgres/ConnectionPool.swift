import Foundation
import HopeSyncLocking
import HopeSyncPostgresClient

/// Connections to one database, each lent to one request at a time. Concurrent requests get
/// connections of their own (up to `limit`; more wait their turn), so one request's wait on a
/// lock never holds up another's. A connection that failed at the connection level is closed,
/// never lent again; the next request connects afresh.
///
/// libpq calls block their thread, so each connection lives on a thread of its own
/// (``WorkerThreads``): never Swift's cooperative threads (a request waiting on a row lock must
/// not starve the tasks that would release it), nor the shared dispatch threads. A request
/// waiting for a connection holds no thread at all.
final class ConnectionPool: @unchecked Sendable {
    private let url: String
    private let workers: WorkerThreads<Connection>

    init(url: String, limit: Int) {
        self.url = url
        workers = WorkerThreads(limit: limit)
    }

    deinit { workers.close() }

    /// Runs `body` with a connection of its own, on the connection's thread. Cancelling the
    /// calling task cancels the statement running for it on the server (or, before it has a
    /// connection, keeps it from starting).
    func run<T: Sendable>(_ body: @escaping @Sendable (Connection) throws(PostgresError) -> T) async throws(PostgresError) -> T {
        let request = RunningRequest()
        let result: Result<T, PostgresError> = await withTaskCancellationHandler {
            await workers.run { [url] connection in Self.lend(body, request, &connection, url: url) }
        } onCancel: {
            request.cancel()
        }
        return try result.get()
    }

    /// Runs `body` on the worker's connection, connecting first when it has none.
    private static func lend<T>(
        _ body: (Connection) throws(PostgresError) -> T, _ request: RunningRequest, _ held: inout Connection?, url: String
    ) -> Result<T, PostgresError> {
        guard !request.isCancelled else { return .failure(cancelled) }
        let connection: Connection
        if let held {
            connection = held
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
                held = connection
            } catch {
                return .failure(error)
            }
        }
        request.start(on: connection)
        defer { request.finish() }
        if request.isCancelled { return .failure(cancelled) }
        do throws(PostgresError) {
            return .success(try body(connection))
        } catch {
            if PostgresFailure.endsConnection(error) { held = nil }
            return .failure(error)
        }
    }

    /// What a request cancelled before its statement ran fails with (query_canceled).
    private static let cancelled = PostgresError(sqlState: "57014", message: "the request was cancelled")
}

/// The connection a request is running on, so another thread can cancel its statement.
private final class RunningRequest: Sendable {
    private struct State {
        var connection: Connection?
        var cancelled = false
    }

    private let state = Locked(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func start(on connection: Connection) {
        state.withLock { $0.connection = connection }
    }

    func finish() {
        state.withLock { $0.connection = nil }
    }

    func cancel() {
        let running = state.withLock { state in
            state.cancelled = true
            return state.connection
        }
        running?.cancel()
    }
}
