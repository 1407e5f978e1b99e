import Foundation
import HopeSchema
import Postgres
import PostgresCluster
import SyncPostgres
import SyncRuntime
import SyncRuntimeTesting

/// Issue 6's benchmark: a sync pass replaying 1,000 queued guarded updates of `tasks`, with no
/// conflicts and with 10% of the rows changed elsewhere first (settled by a resolver answering
/// keepLocal), against the in-memory server and a temporary PostgreSQL with the generated
/// schema. The baseline sends the same 1,000 guarded updates straight through the transport, with
/// no store, queue or bookkeeping. The pass also pulls the rows it changed; that is in its time.
func runConflictBenchmark() async throws {
    let schemaSQL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Generated/supabase/schema.sql")
    print("Conflict benchmark (issue 6): 1,000 queued guarded updates of tasks; each figure the median of 5 runs\n")
    print("backend      conflicts  baseline writes/s  runtime writes/s  ratio  requests/write  resolved  synced")
    let inMemory = { () async throws -> any SyncTransport in InMemoryServer(tables: GeneratedSchema.tables) }
    for share in [0, 10] {
        try await ConflictBenchmark.report(
            "in-memory", share, makeServer: inMemory,
            changeElsewhere: { server, ids in
                let memory = server as! InMemoryServer
                for id in ids { await memory.changeRow(in: "tasks", id: id, ColumnValues(["title": .text("Changed elsewhere")])) }
            })
    }
    let cluster = try TemporaryCluster()
    defer { cluster.stop() }
    let admin = try Connection(url: cluster.url())
    try admin.execute(script: SupabasePrelude.roles)
    var databaseCount = 0
    for share in [0, 10] {
        try await ConflictBenchmark.report(
            "postgresql", share,
            makeServer: {
                databaseCount += 1
                let name = "bench_\(databaseCount)"
                _ = try admin.execute("create database \(name)")
                let database = try Connection(url: cluster.url(database: name))
                try database.execute(script: SupabasePrelude.database)
                try database.execute(script: String(contentsOf: schemaSQL, encoding: .utf8))
                return PostgresTransport(url: cluster.url(database: name))
            },
            changeElsewhere: { server, ids in
                let url = (server as! PostgresTransport).configuration.url
                let list = ids.map { "'\($0.uuidString.lowercased())'" }.joined(separator: ",")
                _ = try Connection(url: url).execute("update public.tasks set title = 'Changed elsewhere' where id in (\(list))")
            })
    }
}

private enum ConflictBenchmark {
    static let writes = 1_000
    static let user = UUID(uuidString: "6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7")!
    static let credentials = Credentials(userID: user, accessToken: "bench")

    struct Run {
        var baseline: Double
        var runtime: Double
        var requestsPerWrite: Double
        var report: SyncReport
    }

    static func report(
        _ name: String, _ share: Int,
        makeServer: () async throws -> any SyncTransport,
        changeElsewhere: (any SyncTransport, [UUID]) async throws -> Void
    ) async throws {
        var runs: [Run] = []
        for _ in 0..<5 { runs.append(try await run(share, makeServer: makeServer, changeElsewhere: changeElsewhere)) }
        let baseline = Measure.median(runs.map(\.baseline))
        let runtime = Measure.median(runs.map(\.runtime))
        let last = runs[runs.count - 1]
        print(
            String(
                format: "%-12@ %8d%%  %17.0f  %16.0f  %5.2f  %14.2f  %8d  %6d",
                name as NSString, share, baseline, runtime, runtime / baseline, last.requestsPerWrite,
                last.report.conflictsResolved, last.report.synced))
    }

    static func run(
        _ share: Int,
        makeServer: () async throws -> any SyncTransport,
        changeElsewhere: (any SyncTransport, [UUID]) async throws -> Void
    ) async throws -> Run {
        // Baseline: the transport alone, each row's guarded update at the version it holds.
        let baseServer = try await makeServer()
        let baselineIDs = try await seed(baseServer)
        let versions = try await baseServer.pull(TaskItem.table, after: 0, limit: writes, as: credentials).rows
        let baseline = try await Measure.secondsAsync {
            for row in versions {
                _ = try await baseServer.guardedUpdate(
                    TaskItem.table, id: UUID(uuidString: row["id"]!.text!)!, baseVersion: row["updated_at"]!.versionText!,
                    set: ColumnValues(["title": .text("Edited")]), extraFilters: [],
                    returning: ["id", "updated_at", "title"], as: credentials
                )
            }
        }
        precondition(baselineIDs.count == writes)

        // The runtime: the same edits queued on a device, then one pass.
        let server = CountingTransport(base: try await makeServer())
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-conflicts-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: user)
        defer { store.close() }
        var configuration = SyncConfiguration()
        configuration.resolver = { _ in .keepLocal }
        let engine = SyncEngine(store: store, transport: server, configuration: configuration) { credentials }
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
        if share > 0 {
            try await changeElsewhere(server.base, tasks.indices.filter { $0 % (100 / share) == 0 }.map { tasks[$0].id })
        }
        server.reset()
        var report = SyncReport()
        let seconds = try await Measure.secondsAsync { report = try await engine.syncNow() }
        precondition(report.synced == writes, "every write lands")
        return Run(
            baseline: Double(writes) / baseline, runtime: Double(writes) / seconds,
            requestsPerWrite: Double(server.writeRequests) / Double(writes), report: report
        )
    }

    /// 1,000 tasks on the server, as the device's first push would make them.
    static func seed(_ server: any SyncTransport) async throws -> [UUID] {
        let tasks = (0..<writes).map { _ in UUID() }
        let rows = tasks.map { id in
            ColumnValues([
                "id": .text(id.uuidString.lowercased()), "user_id": .text(user.uuidString.lowercased()), "title": .text("Task"),
                "notes": .null, "done": .bool(false), "due_at": .null, "deleted_ms": .null, "updated_at": .null,
            ])
        }
        try await server.upsert(rows, into: TaskItem.table, as: credentials)
        return tasks
    }
}

/// Counts the replay's requests (guarded updates and reads by key) a transport serves.
private final class CountingTransport: SyncTransport, @unchecked Sendable {
    let base: any SyncTransport
    private let lock = NSLock()
    private var count = 0

    init(base: any SyncTransport) {
        self.base = base
    }

    var writeRequests: Int { lock.withLock { count } }
    func reset() { lock.withLock { count = 0 } }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        try await base.upsert(rows, into: table, as: user)
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        try await base.pull(table, after: cursor, limit: limit, as: user)
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        lock.withLock { count += 1 }
        return try await base.guardedUpdate(
            table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
    }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
        lock.withLock { count += 1 }
        return try await base.fetch(table, ids: ids, columns: columns, as: user)
    }
}
