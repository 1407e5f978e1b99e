import Foundation
import HopeSync
@_spi(Transport) import HopeSyncPostgres
import HopeSyncTestSupport

/// An idle pass (`syncNow()` with nothing to push or pull: one request of the pull function,
/// answered with the mark alone) of a member of 10 lists beside an own-only device, both at the
/// head of every stream: the server CPU of that answer. Each device has its own transport of
/// one connection, named so that its server process is found and its CPU time read (as `bench
/// merge` reads a request's); blocks of passes interleaved, each block's ratio, the median.
enum ShareIdle {
    static let scopes = 10
    static let tasksPerStream = 20
    static let blocks = 11
    /// About 30 ticks of the server's 10 ms CPU clock a block (an idle pass costs it about 300 µs).
    static let passesPerBlock = 1_000

    static func run(_ database: BenchDatabase, client: ClientConnection, directory: URL) async throws -> [Figure] {
        let (ownOnly, member, listOwner) = (ShareBenchmark.user(20), ShareBenchmark.user(21), ShareBenchmark.user(22))
        for user in [ownOnly, member] { try ShareBenchmark.load(tasks: tasksPerStream, of: user, in: nil, database) }
        for index in 0..<scopes {
            let list = ShareBenchmark.user(100 + index)
            try ShareBenchmark.load(tasks: tasksPerStream, of: listOwner, in: list, database)
            try ShareBenchmark.share(list, with: member, by: listOwner, client)
        }
        let devices = try [("own", ownOnly), ("member", member)].map { name, user in
            try IdleDevice(name, of: user, database: database, directory: directory)
        }
        defer { for device in devices { device.device.close() } }
        for device in devices { try await device.catchUp() }
        let memberScopes = try devices[1].device.store.sharedScopes().count
        guard memberScopes == scopes else { throw BenchmarkError("the member's device knows \(memberScopes) lists, not \(scopes)") }
        print(
            """

            Idle pass: syncNow() with nothing to send or receive (one request, the mark alone back), an own-only device beside a
            member of \(scopes) lists (each device also holds \(tasksPerStream) own tasks); blocks of \(passesPerBlock) passes, interleaved.
            Server CPU: the device's server process, user+system.
            block  own µs/pass  member µs/pass  member/own   wall ms/pass own  member
            """)
        var ratios: [Double] = []
        var totals = (own: 0.0, member: 0.0)
        for block in 1...blocks {
            let order = block.isMultiple(of: 2) ? [1, 0] : [0, 1]
            var costs: [(cpu: Double, wall: Double)] = [(0, 0), (0, 0)]
            for index in order { costs[index] = try await devices[index].idlePasses(passesPerBlock) }
            ratios.append(costs[1].cpu / max(costs[0].cpu, 1e-9))
            totals.own += costs[0].cpu
            totals.member += costs[1].cpu
            let perPass = costs.map { $0.cpu / Double(passesPerBlock) * 1e6 }
            print(
                String(
                    format: "%5d  %11.1f  %14.1f  %10.2f   %16.3f  %6.3f", block, perPass[0], perPass[1], ratios.last!,
                    costs[0].wall / Double(passesPerBlock) * 1e3, costs[1].wall / Double(passesPerBlock) * 1e3))
        }
        let ratio = Measure.median(ratios)
        print(
            "median of the blocks' ratios \(Measure.format(ratio, digits: 2)); all blocks together "
                + Measure.format(totals.member / max(totals.own, 1e-9), digits: 2))
        return [Figure("share.idle_cpu_member_of_10_over_own", ratio, aim: 1.5)]
    }
}

/// A device whose requests go through one connection of their own, watched: its server
/// process, and whether each pass was the one idle request.
final class IdleDevice {
    let device: ShareDevice
    private let application: String
    private let database: BenchDatabase
    private let requests = Locked((count: 0, idle: 0))
    private var backend: Int32 = 0

    init(_ name: String, of user: UUID, database: BenchDatabase, directory: URL) throws {
        application = "bench-share-idle-\(name)"
        self.database = database
        let base = PostgresTransport(configuration: .init(url: database.url + "?application_name=\(application)", maximumConnections: 1))
        let requests = self.requests
        let transport = WatchedTransport(base: base, usesFunctions: true) { request in
            requests.withLock {
                $0.count += 1
                if request.idleAnswer { $0.idle += 1 }
            }
        }
        device = try ShareDevice("idle-\(name)", of: user, transport: transport, directory: directory)
    }

    /// Syncs until a pass is idle (the device at the head of every stream, its mark kept), then
    /// finds its connection's server process.
    func catchUp() async throws {
        for _ in 0..<10 {
            let before = requests.value
            _ = try await device.engine.syncNow()
            let after = requests.value
            if after.count == before.count + 1, after.idle == before.idle + 1 { break }
        }
        let pid = try database.integer("select pid from pg_stat_activity where application_name = $1", [application])
        guard pid > 0 else { throw BenchmarkError("no server process for \(application)") }
        backend = Int32(pid)
    }

    /// `count` passes: the server CPU and wall time they took. Each must be one request, the
    /// idle answer.
    func idlePasses(_ count: Int) async throws -> (cpu: Double, wall: Double) {
        let before = requests.value
        let cpu = ProcessStat(pid: backend)?.cpuSeconds ?? .nan
        let wall = try await Measure.secondsAsync {
            for _ in 0..<count { _ = try await device.engine.syncNow() }
        }
        let used = (ProcessStat(pid: backend)?.cpuSeconds ?? .nan) - cpu
        let after = requests.value
        guard after.count - before.count == count, after.idle - before.idle == count else {
            throw BenchmarkError(
                "\(application): \(count) passes made \(after.count - before.count) requests, \(after.idle - before.idle) idle answers")
        }
        return (used, wall)
    }
}
