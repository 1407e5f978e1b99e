import Foundation
import HopeSync
import HopeSyncModel
import HopeSyncPostgresClient
import HopeSyncTestSupport

extension FleetBenchmark {
    static func user(_ index: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", index))!
    }

    /// Every user starts with rows the server made (through the triggers): 4 activities, 3
    /// finished sessions, 4 tasks and 2 task lists, so devices have shared rows to edit at once.
    static func seed(_ database: BenchDatabase, users: Int) throws {
        let owner = "('00000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid"
        let (id, userID, updated, device) = (ReservedColumn.id, ReservedColumn.owner, ReservedColumn.updatedMs, ReservedColumn.deviceId)
        try database.admin.execute(
            script: """
                insert into public.activities (\(id), \(userID), name, color, sort_order, \(updated), \(device))
                  select gen_random_uuid(), \(owner), 'Activity ' || n, '#10' || n || '0F0', n, 1, 'seed'
                  from generate_series(0, \(users - 1)) u, generate_series(1, 4) n;
                insert into public.sessions (\(id), \(userID), activity_id, started_ms, ended_ms, note, \(updated), \(device))
                  select gen_random_uuid(), a.\(userID), a.\(id), 1700000000000 + n * 60000, 1700000000000 + n * 60000 + 30000, 'seeded ' || n, 1, 'seed'
                  from public.activities a, generate_series(1, 3) n where a.name = 'Activity 1';
                insert into public.tasks (\(id), \(userID), title)
                  select gen_random_uuid(), \(owner), 'Task ' || n from generate_series(0, \(users - 1)) u, generate_series(1, 4) n;
                insert into public.task_lists (\(id), \(userID), name, position)
                  select gen_random_uuid(), \(owner), 'List ' || n, n from generate_series(0, \(users - 1)) u, generate_series(1, 2) n;
                analyze;
                """)
    }

    /// What the run reads from PostgreSQL: the CPU time of every process of the cluster (the
    /// postmaster, its live children, and the children it has reaped), pg_stat_database, the
    /// sequence, and samples of pg_stat_activity's wait events.
    struct ServerProbe: Sendable {
        let url: String
        let postmaster: Int32

        /// User plus system seconds of the postmaster, its reaped children and every live child
        /// (backends, checkpointer, walwriter, autovacuum...).
        func cpuSeconds() -> Double {
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return processes.compactMap(Int32.init).reduce(0.0) { total, pid in
                guard let stat = ProcessStat(pid: pid) else { return total }
                if pid == postmaster { return total + stat.cpuSeconds + stat.reapedChildrenCPUSeconds }
                return stat.parent == postmaster ? total + stat.cpuSeconds : total
            }
        }

        struct Counters {
            var deadlocks = 0
            var commits = 0
            var rollbacks = 0
            var sequence: Int64 = 0
        }

        func counters() throws -> Counters {
            let connection = try Connection(url: url)
            // Backends report their statistics at most once a second.
            _ = try connection.execute("select pg_stat_clear_snapshot()")
            let row = try connection.execute(
                """
                select deadlocks, xact_commit, xact_rollback, (select last_value from \(BenchDatabase.sequence))
                from pg_stat_database where datname = current_database()
                """
            ).rows.first
            return Counters(
                deadlocks: Int(row?[0] ?? "") ?? 0, commits: Int(row?[1] ?? "") ?? 0, rollbacks: Int(row?[2] ?? "") ?? 0,
                sequence: Int64(row?[3] ?? "") ?? 0)
        }

        func sequence() -> Int64 {
            guard let connection = try? Connection(url: url) else { return 0 }
            return Int64((try? connection.execute("select last_value from \(BenchDatabase.sequence)").scalar) ?? "") ?? 0
        }
    }

    /// Samples pg_stat_activity every 50 ms on a thread of its own (libpq blocks): how many
    /// client backends are in a transaction, and what the waiting ones wait on.
    final class WaitSampler: Sendable {
        private struct State {
            var stopped = false
            var samples = 0
            var busy = 0
            var waits: [String: Int] = [:]
            var threads = 0
        }

        private let state = Locked(State())
        private let done = DispatchSemaphore(value: 0)

        init(url: String) {
            let thread = Thread { [self] in
                defer { done.signal() }
                guard let connection = try? Connection(url: url) else { return }
                while !state.value.stopped {
                    let result = try? connection.execute(
                        """
                        select state, coalesce(wait_event_type, ''), coalesce(wait_event, '') from pg_stat_activity
                        where backend_type = 'client backend' and pid <> pg_backend_pid() and datname = current_database()
                        """)
                    let threads = Measure.threadCount()
                    state.withLock { state in
                        state.threads = max(state.threads, threads)
                        state.samples += 1
                        for row in result?.rows ?? [] where row[0] != "idle" {
                            state.busy += 1
                            if let type = row[1], !type.isEmpty, type != "Client" {
                                state.waits["\(type):\(row[2] ?? "")", default: 0] += 1
                            }
                        }
                    }
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            thread.start()
        }

        /// Stops sampling: the mean busy backends per sample, each wait's mean backends, and the
        /// most threads this process had.
        func stop() -> (busy: Double, waits: [(String, Double)], threads: Int) {
            state.withLock { $0.stopped = true }
            done.wait()
            let state = state.value
            let count = Double(max(1, state.samples))
            return (
                Double(state.busy) / count, state.waits.sorted { $0.value > $1.value }.map { ($0.key, Double($0.value) / count) },
                state.threads
            )
        }
    }
}
