import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncTestSupport

extension FleetBenchmark {
    /// The probes that end a run, each on its own (nothing else running): pulls of an unrelated
    /// user while pushes wait on their owners' locks, the sequence numbers one upsert takes, and
    /// the requests of one idle pass.
    static func probes(_ database: BenchDatabase, settings: Settings, idleDevice: Device) async throws -> [Figure] {
        let waits = try await waitingPushesProbe(database, pool: settings.pool)
        print(
            "\na pull of another user while N pushes wait on their owners' locks (released 0.5 s later, within the wait's bound), same transport, pool of \(settings.pool): "
                + waits.map(\.line).joined(separator: ", "))
        let oneOwner = try await oneOwnersPushesProbe(database, pool: settings.pool)
        print(
            "a pull of another user while \(settings.pool) pushes of one owner want its lock (held elsewhere, released 0.5 s after the pull), pool of \(settings.pool): "
                + oneOwner.line)
        let numbers = try await sequenceProbe(database, user: user(0))
        print(
            "server_seq numbers one upsert of one activity takes (through PostgresTransport, nothing else running):"
                + " a new row \(numbers.new), a winning update \(numbers.winning), a losing repeat \(numbers.losing)")
        let requests = try await idlePassRequests(idleDevice, database: database, settings: settings, usesFunctions: true)
        let tableRequests = try await idlePassRequests(idleDevice, database: database, settings: settings, usesFunctions: false)
        print(
            "requests of one idle pass (syncNow() on a device with nothing to send or receive): \(requests) through sync_pull,"
                + " \(tableRequests) table by table")
        return [
            Figure("fleet.unrelated_pull_ms_with_owner_waits", oneOwner.pullMs, aim: 50, digits: 1),
            Figure("fleet.requests_per_idle_pass", Double(requests), aim: 1, digits: 0),
        ]
    }

    /// Pushes of N users wait on their owners' locks (held by another session) while an unrelated
    /// user pulls through the same transport: does the pull get through? It does while N < pool;
    /// at N = pool every connection waits on a lock and the pull waits too, as long as the
    /// locks are held (which the server bounds: a wait ends after a second with 55P03).
    static func waitingPushesProbe(
        _ database: BenchDatabase, pool: Int
    ) async throws -> [(waiting: Int, pullMs: Double, line: String)] {
        var results: [(waiting: Int, pullMs: Double, line: String)] = []
        for waiting in Array(Set([1, pool / 2, pool - 1, pool])).sorted() where waiting > 0 {
            let transport = PostgresTransport(configuration: .init(url: database.url, maximumConnections: pool))
            let holder = try Connection(url: database.url)
            let owners = (0..<waiting).map { user($0) }
            for owner in owners {
                // The owner's lock as the generated trigger takes it, held as another session would.
                try holder.execute("select pg_advisory_lock(1752134757, hashtext($1))", [owner.uuidString.lowercased()])
            }
            let pushes = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for owner in owners {
                        group.addTask {
                            let stamp = WriteStamp(ms: Int64(Date().timeIntervalSince1970 * 1000), deviceID: "probe")
                            let row = probeActivity(id: UUID().uuidString.lowercased(), owner: owner, stamp: stamp)
                            try await transport.upsert([row], into: Activity.table, as: Credentials(userID: owner, accessToken: ""))
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Every push waiting (or 3 s gone), then the locks go 0.5 s later whatever the pull is doing.
            var blocked: Int64 = 0
            for _ in 0..<300 where blocked < waiting {
                try await Task.sleep(for: .milliseconds(10))
                blocked = try database.integer(
                    "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'advisory'")
            }
            let released = DispatchSemaphore(value: 0)
            let due = DispatchTime.now().uptimeNanoseconds + 500_000_000
            let late = Locked(0.0)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) {
                late.value = Measure.since(due) * 1e3
                _ = try? holder.execute("select pg_advisory_unlock_all()")
                released.signal()
            }
            let start = DispatchTime.now().uptimeNanoseconds
            let unrelated = user(max(49, pool))
            _ = try await transport.pull(Activity.table, after: 0, limit: 1, as: Credentials(userID: unrelated, accessToken: ""))
            let pulledMs = Measure.since(start) * 1e3
            try await pushes.value
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    released.wait()
                    continuation.resume()
                }
            }
            let line =
                "\(waiting) pushing (\(blocked) waiting): \(Measure.format(pulledMs, digits: 1)) ms"
                + " (the release, on DispatchQueue.global(), ran \(Measure.format(late.value, digits: 0)) ms late)"
            results.append((waiting, pulledMs, line))
        }
        return results
    }

    /// As many pushes of one owner as the pool has connections want that owner's lock, held by
    /// another session, while an unrelated user pulls: at most one of them waits for the lock
    /// (the others fail at once with 55P03 and would retry after a backoff), so the pull finds
    /// a free connection.
    static func oneOwnersPushesProbe(_ database: BenchDatabase, pool: Int) async throws -> (pullMs: Double, line: String) {
        let transport = PostgresTransport(configuration: .init(url: database.url, maximumConnections: pool))
        let holder = try Connection(url: database.url)
        let owner = user(0)
        try holder.execute("select pg_advisory_lock(1752134757, hashtext($1))", [owner.uuidString.lowercased()])
        let refused = Locked(0)
        let pushes = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<pool {
                    group.addTask {
                        let stamp = WriteStamp(ms: Int64(Date().timeIntervalSince1970 * 1000), deviceID: "probe")
                        let row = probeActivity(id: UUID().uuidString.lowercased(), owner: owner, stamp: stamp)
                        do throws(SyncError) {
                            try await transport.upsert([row], into: Activity.table, as: Credentials(userID: owner, accessToken: ""))
                        } catch {
                            if error.serverError?.code == "55P03" { refused.withLock { $0 += 1 } }
                        }
                    }
                }
            }
        }
        // One push waiting on the lock and the others answered (or 3 s gone).
        var waiting: Int64 = 0
        for _ in 0..<300 where waiting < 1 || refused.value < pool - 1 {
            try await Task.sleep(for: .milliseconds(10))
            waiting = try database.integer(
                "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'advisory'")
        }
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try await transport.pull(Activity.table, after: 0, limit: 1, as: Credentials(userID: user(max(49, pool)), accessToken: ""))
        let pulledMs = Measure.since(start) * 1e3
        let refusedAtOnce = refused.value
        try await Task.sleep(for: .milliseconds(500))
        _ = try holder.execute("select pg_advisory_unlock_all()")
        await pushes.value
        let line =
            "\(Measure.format(pulledMs, digits: 1)) ms (\(waiting) push waiting on the lock, \(refusedAtOnce) refused at once with 55P03;"
            + " \(pool - refused.value) landed once the lock was free)"
        return (pulledMs, line)
    }

    /// How many sequence numbers one upsert takes: of a new row, of an update that wins a
    /// column, and of a repeat that wins nothing (the trigger also runs for the proposed row of
    /// an upsert that turns into an update).
    static func sequenceProbe(_ database: BenchDatabase, user: UUID) async throws -> (new: Int64, winning: Int64, losing: Int64) {
        let transport = PostgresTransport(url: database.url)
        let credentials = Credentials(userID: user, accessToken: "")
        let id = UUID().uuidString.lowercased()
        let ms = Int64(Date().timeIntervalSince1970 * 1000)
        func taken(_ ms: Int64) async throws -> Int64 {
            let before = try database.integer("select last_value from \(BenchDatabase.sequence)")
            try await transport.upsert(
                [probeActivity(id: id, owner: user, stamp: WriteStamp(ms: ms, deviceID: "probe"))], into: Activity.table, as: credentials)
            return try database.integer("select last_value from \(BenchDatabase.sequence)") - before
        }
        return (try await taken(ms), try await taken(ms + 1), try await taken(ms + 1))
    }

    /// The requests one pass of the engine sends when there is nothing to send or receive: the
    /// load every idle device puts on the server at each poll.
    static func idlePassRequests(_ device: Device, database: BenchDatabase, settings: Settings, usesFunctions: Bool) async throws -> Int {
        let requests = Locked(0)
        let transport = WatchedTransport(base: PostgresTransport(url: database.url), usesFunctions: usesFunctions) { _ in
            requests.withLock { $0 += 1 }
        }
        let credentials = Credentials(userID: device.user, accessToken: "unused")
        let engine = SyncEngine(store: device.store, transport: transport, configuration: settings.configuration) { credentials }
        _ = try await engine.syncNow()
        requests.value = 0
        _ = try await engine.syncNow()
        return requests.value
    }

    /// An activity as a device pushes it: every column but server_seq, each stamped by `stamp`.
    static func probeActivity(id: String, owner: UUID, stamp: WriteStamp) -> ColumnValues {
        Activity.table.row(
            id: id, owner: owner, stamp: stamp,
            ["name": .text("probe \(stamp.ms)"), "color": .text("#000000"), "archived": .bool(false), "sort_order": .double(0)])
    }
}
