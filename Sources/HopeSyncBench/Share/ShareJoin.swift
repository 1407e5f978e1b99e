import Foundation
@_spi(Transport) import HopeSync
@_spi(Transport) import HopeSyncPostgres

/// A member joining a 10,000-task list beside an initial sync of 10,000 own tasks: the same
/// runtime, transport and server, rounds interleaved (which goes first alternates). The own
/// device is new and empty and pulls its user's own stream; the member is a new user whose
/// device has synced (nothing yet) when the list's owner shares the list with them, so its next
/// pass reads the list's stream from 0 through the sharing pull, in pages, as a join does.
/// Rows per second of that pass (wall time); a figure is the median of the rounds' ratios.
enum ShareJoin {
    static let rows = 10_000
    static let rounds = 11

    struct Run {
        var rows: Int
        var seconds: Double
        /// This process's CPU time: the device's side of the pass.
        var cpuSeconds: Double
        var rowsPerSecond: Double { Double(rows) / seconds }
    }

    static func run(_ database: BenchDatabase, client: ClientConnection, directory: URL) async throws -> [Figure] {
        let (owner, ownUser, list) = (ShareBenchmark.user(1), ShareBenchmark.user(2), ShareBenchmark.user(3))
        try ShareBenchmark.load(tasks: rows, of: owner, in: list, database)
        try ShareBenchmark.load(tasks: rows, of: ownUser, in: nil, database)
        let transport = PostgresTransport(url: database.url)
        print(
            """

            Joining: a member's device pulls a list of \(rows) tasks it was just added to, beside a new device's initial sync
            of \(rows) own tasks (pages of \(SyncConfiguration().pageSize), one syncNow() each, device file on disk); \(rounds) rounds.
            round  initial rows  rows/s  CPU s   join rows  rows/s  CPU s   join/initial
            """)
        var ratios: [Double] = []
        var runs: (own: [Run], join: [Run]) = ([], [])
        for round in 1...rounds {
            let member = ShareBenchmark.user(1_000 + round)
            var own: Run
            var joined: Run
            if round.isMultiple(of: 2) {
                joined = try await join(list, by: member, sharedBy: owner, client, transport, directory)
                own = try await initialSync(of: ownUser, transport, directory)
            } else {
                own = try await initialSync(of: ownUser, transport, directory)
                joined = try await join(list, by: member, sharedBy: owner, client, transport, directory)
            }
            ratios.append(joined.rowsPerSecond / own.rowsPerSecond)
            runs.own.append(own)
            runs.join.append(joined)
            print(
                String(
                    format: "%5d  %12d  %6.0f  %5.2f   %9d  %6.0f  %5.2f   %12.2f", round, own.rows, own.rowsPerSecond, own.cpuSeconds,
                    joined.rows, joined.rowsPerSecond, joined.cpuSeconds, ratios.last!))
        }
        let ratio = Measure.median(ratios)
        print(
            "median: initial \(Measure.format(Measure.median(runs.own.map(\.rowsPerSecond)), digits: 0)) rows/s, join "
                + "\(Measure.format(Measure.median(runs.join.map(\.rowsPerSecond)), digits: 0)) rows/s; ratio (median of the rounds') "
                + Measure.format(ratio, digits: 2))
        return [Figure("share.join_rows_per_s_over_initial", ratio, aim: 0.8)]
    }

    /// A new device of `user` pulls everything: their own tasks.
    static func initialSync(of user: UUID, _ transport: any SyncTransport, _ directory: URL) async throws -> Run {
        let device = try ShareDevice("own", of: user, transport: transport, directory: directory)
        defer { device.close() }
        let run = try await timedPass(device)
        let held = try await device.taskCount()
        guard run.rows == rows, held == rows else {
            throw BenchmarkError("the initial sync pulled \(run.rows) rows and holds \(held) tasks, not \(rows)")
        }
        return run
    }

    /// `member`'s synced device, then `owner` shares `list` with them: the device's next pass.
    static func join(
        _ list: UUID, by member: UUID, sharedBy owner: UUID, _ client: ClientConnection, _ transport: any SyncTransport, _ directory: URL
    ) async throws -> Run {
        let device = try ShareDevice("member", of: member, transport: transport, directory: directory)
        defer { device.close() }
        _ = try await device.engine.syncNow()
        try ShareBenchmark.share(list, with: member, by: owner, client)
        let run = try await timedPass(device)
        let held = try await device.taskCount()
        let scopes = try device.store.sharedScopes()
        guard held == rows, scopes.map(\.id) == [list], scopes.allSatisfy({ !$0.isArriving }) else {
            throw BenchmarkError("the joining device holds \(held) tasks of \(rows), scopes \(scopes)")
        }
        return run
    }

    private static func timedPass(_ device: ShareDevice) async throws -> Run {
        var report = SyncReport()
        let cpu = Measure.cpuSeconds()
        let seconds = try await Measure.secondsAsync { report = try await device.engine.syncNow() }
        return Run(rows: report.pulled, seconds: seconds, cpuSeconds: Measure.cpuSeconds() - cpu)
    }
}
