import Foundation
import HopeSchema
import Postgres
import PostgresCluster
import SyncPostgres
import SyncRuntime
import SyncTestSupport

extension FleetBenchmark {
    // MARK: Server

    static func user(_ index: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", index))!
    }

    /// Every user starts with rows the server made (through the triggers): 4 activities, 3
    /// finished sessions, 4 tasks and 2 task lists, so devices have shared rows to edit at once.
    static func seed(_ admin: Connection, users: Int) throws {
        let owner = "('00000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid"
        try admin.execute(
            script: """
                insert into public.activities (id, user_id, name, color, sort_order, updated_ms, device_id)
                  select gen_random_uuid(), \(owner), 'Activity ' || n, '#10' || n || '0F0', n, 1, 'seed'
                  from generate_series(0, \(users - 1)) u, generate_series(1, 4) n;
                insert into public.sessions (id, user_id, activity_id, started_ms, ended_ms, note, updated_ms, device_id)
                  select gen_random_uuid(), a.user_id, a.id, 1700000000000 + n * 60000, 1700000000000 + n * 60000 + 30000, 'seeded ' || n, 1, 'seed'
                  from public.activities a, generate_series(1, 3) n where a.name = 'Activity 1';
                insert into public.tasks (id, user_id, title)
                  select gen_random_uuid(), \(owner), 'Task ' || n from generate_series(0, \(users - 1)) u, generate_series(1, 4) n;
                insert into public.task_lists (id, user_id, name, position)
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

        init(_ server: SyncBenchmark.Server) throws {
            url = server.url
            let pidFile = server.cluster.directory.appendingPathComponent("data/postmaster.pid")
            let text = try String(contentsOf: pidFile, encoding: .utf8)
            postmaster = Int32(text.split(separator: "\n").first ?? "") ?? 0
        }

        /// User plus system seconds of the postmaster, its reaped children (cutime, cstime)
        /// and every live child (backends, checkpointer, walwriter, autovacuum...).
        func cpuSeconds() -> Double {
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            var total = 0.0
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            for name in processes {
                guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                // Fields after the command name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 14, let parent = Int32(fields[1]) else { continue }
                if pid == postmaster {
                    total += fields[11...14].compactMap { Double($0) }.reduce(0, +) / ticks
                } else if parent == postmaster {
                    total += fields[11...12].compactMap { Double($0) }.reduce(0, +) / ticks
                }
            }
            return total
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
                select deadlocks, xact_commit, xact_rollback, (select last_value from public.sync_server_seq)
                from pg_stat_database where datname = current_database()
                """
            ).rows.first
            return Counters(
                deadlocks: Int(row?[0] ?? "") ?? 0, commits: Int(row?[1] ?? "") ?? 0, rollbacks: Int(row?[2] ?? "") ?? 0,
                sequence: Int64(row?[3] ?? "") ?? 0)
        }

        func sequence() -> Int64 {
            guard let connection = try? Connection(url: url) else { return 0 }
            return Int64((try? connection.execute("select last_value from public.sync_server_seq").scalar) ?? "") ?? 0
        }
    }

    /// Samples pg_stat_activity every 50 ms on a thread of its own (libpq blocks): how many
    /// client backends are in a transaction, and what the waiting ones wait on.
    final class WaitSampler: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private var samples = 0
        private var busy = 0
        private var waits: [String: Int] = [:]
        private var threads = 0
        private let done = DispatchSemaphore(value: 0)

        init(url: String) {
            let thread = Thread { [self] in
                defer { done.signal() }
                guard let connection = try? Connection(url: url) else { return }
                while !lock.withLock({ stopped }) {
                    let result = try? connection.execute(
                        """
                        select state, coalesce(wait_event_type, ''), coalesce(wait_event, '') from pg_stat_activity
                        where backend_type = 'client backend' and pid <> pg_backend_pid() and datname = current_database()
                        """)
                    let threadCount = Self.threadCount()
                    lock.withLock {
                        threads = max(threads, threadCount)
                        samples += 1
                        for row in result?.rows ?? [] where row[0] != "idle" {
                            busy += 1
                            if let type = row[1], !type.isEmpty, type != "Client" {
                                waits["\(type):\(row[2] ?? "")", default: 0] += 1
                            }
                        }
                    }
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            thread.start()
        }

        /// Stops sampling: the mean busy backends per sample, each wait's mean backends, and
        /// the most threads this process had.
        func stop() -> (busy: Double, waits: [(String, Double)], threads: Int) {
            lock.withLock { stopped = true }
            done.wait()
            return lock.withLock {
                let count = Double(max(1, samples))
                return (Double(busy) / count, waits.sorted { $0.value > $1.value }.map { ($0.key, Double($0.value) / count) }, threads)
            }
        }

        /// This process's threads now (Linux: /proc/self/status).
        static func threadCount() -> Int {
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
            let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
            return line.flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        }
    }
}
