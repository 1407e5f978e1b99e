import Foundation
import HopeSyncPostgresClient
import HopeSyncTestSupport
import Testing

@testable import HopeSyncPostgres

/// libpq blocks its thread: the pool runs each connection on a thread of its own (never a
/// dispatch or cooperative thread), at most `limit` of them; more requests wait their turn.
@Suite struct ConnectionPoolTests {
    @Test func requestsRunOnThePoolsOwnThreadsAtMostLimitOfThem() async throws {
        let server = try TestServer()
        let pool = ConnectionPool(url: server.database.url, limit: 2)
        let threads = Locked(Set<String>())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await pool.run { connection throws(PostgresError) in
                        _ = try connection.execute("select pg_sleep(0.05)")
                        let identity = "\(pthread_self())"
                        _ = threads.withLock { $0.insert(identity) }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Eight requests, two at a time, on the same two threads: the pool's, one per connection.
        #expect(threads.value.count == 2, "\(threads.value)")
    }

    @Test func requestsWaitingForTheOnlyConnectionAreServedWhenItFrees() async throws {
        let server = try TestServer()
        let pool = ConnectionPool(url: server.database.url, limit: 1)
        let release = Locked(false)
        // The only connection is busy until released; many requests queue behind it.
        let busy = Task {
            try await pool.run { connection throws(PostgresError) in
                while !release.value { _ = try connection.execute("select pg_sleep(0.01)") }
            }
        }
        let queued = (0..<16).map { _ in
            Task { try await pool.run { connection throws(PostgresError) in try connection.execute("select 1").scalar } }
        }
        release.value = true
        try await busy.value
        for request in queued { #expect(try await request.value == "1") }
    }
}
