import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncTestSupport
import HopeSyncTesting

/// `bench conflicts`: a sync pass replaying 1,000 queued guarded updates of `tasks`, with no
/// conflicts and with 10% of the rows changed elsewhere first (settled by a resolver answering
/// keepLocal), against the in-memory server and a temporary PostgreSQL with the generated
/// schema. The baseline sends the same 1,000 guarded updates straight through the transport,
/// with no store, queue or bookkeeping. The pass also pulls the rows it changed; that is in its
/// time.
enum GuardedReplay {
    static let writes = 1_000
    static let user = UUID(uuidString: "6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7")!
    static let credentials = Credentials(userID: user, accessToken: "bench")

    /// A fresh server with the generated tables, and another client changing rows of `tasks` on it.
    typealias Server = (transport: any SyncTransport, changeElsewhere: ([UUID]) async throws -> Void)

    struct Run {
        var baseline: Double
        var runtime: Double
        var requestsPerWrite: Double
        var report: SyncReport
    }

    static func run() async throws -> [Figure] {
        print("Guarded replay: 1,000 queued guarded updates of tasks; each figure the median of 5 runs\n")
        print("backend      conflicts  baseline writes/s  runtime writes/s  ratio  requests/write  resolved  synced")
        let changed = ColumnValues(["title": .text("Changed elsewhere")])
        let inMemory = { () async throws -> Server in
            let server = InMemoryServer(tables: GeneratedSchema.tables)
            return (server, { ids in for id in ids { await server.changeRow(in: TaskItem.table.name, id: id, changed) } })
        }
        let cluster = try BenchCluster.start()
        defer { cluster.stop() }
        let postgres = { () async throws -> Server in
            let database = try cluster.createDatabase("bench_\(UUID().uuidString.prefix(8).lowercased())", generatedSchema: true)
            return (
                PostgresTransport(url: database.url),
                { ids in
                    try database.admin.execute(
                        "update public.\(TaskItem.table.name) set title = 'Changed elsewhere' where \(ReservedColumn.id) = any($1::uuid[])",
                        ["{" + ids.map { $0.uuidString.lowercased() }.joined(separator: ",") + "}"])
                }
            )
        }
        var figures: [Figure] = []
        for (name, figure, makeServer) in [("in-memory", "memory", inMemory), ("postgresql", "postgresql", postgres)] {
            for share in [0, 10] {
                var runs: [Run] = []
                for _ in 0..<5 { runs.append(try await run(share, makeServer: makeServer)) }
                let baseline = Measure.median(runs.map(\.baseline))
                let runtime = Measure.median(runs.map(\.runtime))
                let last = runs[runs.count - 1]
                print(
                    name.padded(12)
                        + String(
                            format: " %8d%%  %17.0f  %16.0f  %5.2f  %14.2f  %8d  %6d", share, baseline, runtime, runtime / baseline,
                            last.requestsPerWrite, last.report.conflictsResolved, last.report.synced))
                if share == 0 { figures.append(Figure("conflicts.requests_per_write_\(figure)", last.requestsPerWrite, aim: 1)) }
            }
        }
        return figures
    }

    static func run(_ share: Int, makeServer: () async throws -> Server) async throws -> Run {
        // Baseline: the transport alone, each row's guarded update at the version it holds.
        let table = TaskItem.table
        let version = table.conflict.versionKind!.columnName
        let base = try await makeServer().transport
        try await seed(base)
        let versions = try await base.pull(table, after: 0, limit: writes, as: credentials).rows
        precondition(versions.count == writes)
        let baseline = try await Measure.secondsAsync {
            for row in versions {
                _ = try await base.guardedUpdate(
                    table, id: UUID(uuidString: row[ReservedColumn.id]!.text!)!, baseVersion: row[version]!.versionText!,
                    set: ColumnValues(["title": .text("Edited")]), extraFilters: [], returning: [ReservedColumn.id, version, "title"],
                    as: credentials)
            }
        }

        // The runtime: the same edits queued on a device of a new server, then one pass.
        let server = try await makeServer()
        let requests = Locked(0)
        let counted = WatchedTransport(base: server.transport) { request in
            if request.kind == .guardedUpdate || request.kind == .fetch { requests.withLock { $0 += 1 } }
        }
        let path = Scratch.databasePath("bench-conflicts")
        defer { Scratch.removeDatabase(path) }
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: user)
        defer { store.close() }
        var configuration = SyncConfiguration()
        configuration.resolver = { _ in .keepLocal }
        let engine = SyncEngine(store: store, transport: counted, configuration: configuration) { credentials }
        let tasks = (0..<writes).map { TaskItem(title: "Task \($0)") }
        try await store.write { writer in for task in tasks { try writer.save(task) } }
        try await engine.syncNow()
        try await store.write { writer in
            for task in tasks {
                var edited = try writer.fetchOne(TaskItem.self, id: task.id)!
                edited.title += " (edited)"
                try writer.save(edited)
            }
        }
        if share > 0 { try await server.changeElsewhere(tasks.indices.filter { $0 % (100 / share) == 0 }.map { tasks[$0].id }) }
        requests.value = 0
        var report = SyncReport()
        let seconds = try await Measure.secondsAsync { report = try await engine.syncNow() }
        precondition(report.synced == writes, "every write lands")
        return Run(
            baseline: Double(writes) / baseline, runtime: Double(writes) / seconds,
            requestsPerWrite: Double(requests.value) / Double(writes), report: report)
    }

    /// 1,000 tasks on the server, as the device's first push would make them.
    static func seed(_ server: any SyncTransport) async throws {
        let rows = (0..<writes).map { _ in
            TaskItem.table.row(id: UUID().uuidString.lowercased(), owner: user, ["title": .text("Task"), "done": .bool(false)])
        }
        try await server.upsert(rows, into: TaskItem.table, as: credentials)
    }
}
