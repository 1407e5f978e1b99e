import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

/// The in-memory server's column lifecycle (InMemoryServer+Lifecycle.swift, which the randomized
/// lifecycle fleet runs on) does what the generated SQL does on PostgreSQL: one seeded stream of
/// pushes, each as a build of Tests/Fixtures/Lifecycle sends it (its columns, its stamps, its
/// schema version, one row or two; a note's edit as a guarded update on the version it saw, or
/// an older one), goes to both servers while they take v1, v2 and v3's migrations. After each
/// migration and each push both took it or both refused it with the same code, and habits,
/// notes and tags hold the same rows column by column on both: every name of a renamed pair,
/// the retyped values, the stamps and versions, the deprecated and retired columns, and the
/// rows' order by server_seq.
///
/// Seeds: LIFECYCLE_EQUIVALENCE_RUNS (default 2) from LIFECYCLE_EQUIVALENCE_SEED (default 1).
@Suite struct LifecycleEquivalenceTests {
    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        let runs = environment["LIFECYCLE_EQUIVALENCE_RUNS"].flatMap(UInt64.init) ?? 2
        let first = environment["LIFECYCLE_EQUIVALENCE_SEED"].flatMap(UInt64.init) ?? 1
        return Array(first..<(first + runs))
    }()

    @Test(arguments: seeds)
    func theInMemoryLifecycleTakesAndRefusesWhatPostgresDoes(seed: UInt64) async throws {
        let bench = try await LifecycleBench()
        var script = LifecycleScript(seed: seed, user: bench.user)
        var problems: [String] = []
        var outcomes: [String: Int] = [:]
        for step in 1...3 {
            try await bench.migrate(to: step)
            problems += try await bench.differences(after: "v\(step)'s migration")
            for index in 0..<50 where problems.isEmpty {
                let push = script.next(serverStep: step, index: index)
                let outcome = try await bench.send(push)
                outcomes[outcome.memory, default: 0] += 1
                if outcome.memory != outcome.postgres {
                    problems.append("push \(step).\(index) (\(push)): in memory \(outcome.memory), on PostgreSQL \(outcome.postgres)")
                }
                problems += try await bench.differences(after: "push \(step).\(index) (\(push))")
            }
        }
        #expect(problems.isEmpty, "seed \(seed) (replay: LIFECYCLE_EQUIVALENCE_SEED=\(seed)): \(problems.prefix(4))")
        // The stream reaches both servers' refusals, so a quiet run means something.
        #expect(outcomes["taken", default: 0] >= 60, "\(outcomes)")
        #expect(outcomes["unmatched", default: 0] >= 1, "a guarded update on an older version: \(outcomes)")
        #expect(outcomes["428C9", default: 0] >= 1, "a v1 push naming a retired column: \(outcomes)")
        #expect(outcomes["PT426", default: 0] >= 1, "a v1 push of tags below the floor: \(outcomes)")
    }
}

/// One push of the stream: the build that sends it, the table as that build knows it, the rows
/// (an upsert), or one row's columns to set on the version the build saw (a guarded update,
/// `stale`: on the one before it).
private struct LifecyclePush: CustomStringConvertible {
    let build: Int
    let table: TableSchema
    var rows: [ColumnValues]
    var guarded: (id: UUID, set: ColumnValues, stale: Bool)? = nil

    var description: String {
        let ids = rows.map { $0[ReservedColumn.id]?.text?.prefix(8) ?? "" } + [guarded.map { $0.id.uuidString.prefix(8) }].compactMap { $0 }
        return "v\(build) \(table.name) \(guarded == nil ? "upsert" : "guarded") \(ids)"
    }
}

/// The seeded stream: a few rows of habits and tags written again and again by three devices,
/// each write a whole row as the runtime pushes it, with stamps now and then older than the
/// server's, values the retype's `back` cannot read, and soft deletes.
private struct LifecycleScript {
    var random: SeededGenerator
    let user: UUID
    let habits: [UUID]
    let tags: [UUID]
    let notes: [UUID]
    /// An hour ago: every stamp is within the servers' one-day limit.
    var clock = Int64(Date().timeIntervalSince1970 * 1_000) - 3_600_000

    init(seed: UInt64, user: UUID) {
        random = SeededGenerator(seed: seed &* 7_919)
        self.user = user
        var ids = SeededGenerator(seed: seed)
        habits = (0..<5).map { _ in ids.uuid() }
        tags = (0..<3).map { _ in ids.uuid() }
        notes = (0..<3).map { _ in ids.uuid() }
    }

    /// The push `index` at a server at `serverStep`, by a build it has seen: the same build or an
    /// older one. The first two after v3's migration are v1's, of tags and of habits, so every
    /// run reaches both refusals of a build below the floor (PT426, and 428C9 for a retired
    /// column).
    mutating func next(serverStep: Int, index: Int) -> LifecyclePush {
        let forced = serverStep == 3 && index < 2
        let build = forced ? 1 : 1 + random.below(serverStep)
        let schema = LifecycleBuilds.schema(build)
        if !forced, random.below(4) == 0 { return note(by: build, schema) }
        let writesTags = forced ? index == 0 : build == 1 && random.below(4) == 0
        let table: TableSchema = schema.tables.first { $0.name == (writesTags ? "tags" : "habits") }!
        var pool: [UUID] = writesTags ? tags : habits
        var rows: [ColumnValues] = []
        for _ in 0..<(1 + random.below(2)) {
            let id = pool.remove(at: random.below(pool.count))
            rows.append(row(id, of: table))
        }
        return LifecyclePush(build: build, table: table, rows: rows)
    }

    /// An edit of a note (a version table) as a guarded update, on the version the build saw or
    /// the one before it; the bench makes it a new note where there is none yet. (A whole row
    /// pushed again over one that exists is PostgresKnownIssuesTests'.)
    private mutating func note(by build: Int, _ schema: AppSchema) -> LifecyclePush {
        let table: TableSchema = schema.tables.first { $0.name == "notes" }!
        let text = "note \(random.below(1_000))"
        let set = ColumnValues(
            columns: [build == 1 ? "heading" : "title", "body"], values: [.text(text), random.below(3) == 0 ? .null : .text(text)])
        return LifecyclePush(build: build, table: table, rows: [], guarded: (notes[random.below(notes.count)], set, random.below(3) == 0))
    }

    private mutating func row(_ id: UUID, of table: TableSchema) -> ColumnValues {
        clock += Int64(1 + random.below(1_000))
        let device = "d\(1 + random.below(3))"
        var stamps = ColumnStamps()
        var values: [String: SyncValue] = [:]
        for column in table.stampedColumns {
            // One column in four keeps an older stamp, as a device that did not write it holds.
            let age = random.below(4) == 0 ? Int64(random.below(20_000)) : 0
            stamps[column.name] = WriteStamp(ms: clock - age, deviceID: age == 0 ? device : "d\(1 + random.below(3))")
            values[column.name] = value(of: column.name)
        }
        values[ReservedColumn.id] = .text(id.uuidString.lowercased())
        values[ReservedColumn.owner] = .text(user.uuidString.lowercased())
        return table.pushed(values, stamps: stamps)
    }

    private mutating func value(of column: String) -> SyncValue {
        let number = random.below(1_000)
        switch column {
        case "streak": return .int(Int64(number))
        case "goal": return number % 7 == 0 ? .null : .int(Int64(number))
        case "goal_text": return number % 7 == 0 ? .null : .text(number % 3 == 0 ? "g\(number)" : String(number))
        case ReservedColumn.deletedMs: return number % 8 == 0 ? .int(clock) : .null
        default: return .text("\(column) \(number)")
        }
    }
}

/// The two servers side by side, one user's pushes going to both.
private struct LifecycleBench {
    let user = UUID()
    let memory: InMemoryServer
    let connection: Connection
    let postgres: PostgresTransport

    init() async throws {
        let database = try PostgresCluster.createDatabase()
        connection = try database.connect()
        postgres = PostgresTransport(url: database.url)
        memory = InMemoryServer(tables: LifecycleBuilds.v1.tables, clock: { Int64(Date().timeIntervalSince1970 * 1_000) })
    }

    /// Both servers take `step`'s migration (v3's sets oldest_writer 2).
    func migrate(to step: Int) async throws {
        try LifecycleEndToEndTests.migrate(connection, to: "v\(step)", from: step)
        switch step {
        case 1: await memory.migrate(to: LifecycleBuilds.serverV1)
        case 2: await memory.migrate(to: LifecycleBuilds.serverV2)
        default:
            await memory.migrate(to: LifecycleBuilds.serverV3)
            await memory.setOldestWriter(LifecycleBuilds.v2.schemaVersion)
        }
    }

    /// What each server made of `push`: "taken", "unmatched" (a guarded update whose version
    /// moved), or the code it refused it with.
    func send(_ push: LifecyclePush) async throws -> (memory: String, postgres: String) {
        let push = await withVersions(push)
        let version = LifecycleBuilds.schema(push.build).schemaVersion
        let memory = await Self.outcome { try await self.send(push, to: self.memory.stating(schemaVersion: version)) }
        let postgres = await Self.outcome { try await self.send(push, to: self.postgres.stating(schemaVersion: version)) }
        return (memory, postgres)
    }

    private func send(_ push: LifecyclePush, to server: any SyncTransport) async throws -> Bool {
        let credentials = Credentials(user)
        guard let (id, set, _) = push.guarded else {
            _ = try await server.upsert(push.rows, into: push.table, as: credentials)
            return true
        }
        let base = push.rows.first?[VersionKind.integer.columnName]?.versionText ?? ""
        let returned = try await server.guardedUpdate(
            push.table, id: id, baseVersion: base, set: set, extraFilters: [], returning: push.table.columnNames, as: credentials)
        return !returned.isEmpty
    }

    /// A guarded update's base: the note's version as the in-memory server holds it (both
    /// servers hold the same, or the comparison says otherwise), one less when stale, carried in
    /// `rows`. A guarded update of a note neither holds yet goes as an upsert of a new one.
    private func withVersions(_ push: LifecyclePush) async -> LifecyclePush {
        var push = push
        let stored = await memory.rows(of: "notes")
        let version = VersionKind.integer.columnName
        if let (id, set, stale) = push.guarded {
            guard case .int(let number)? = stored[id.uuidString.lowercased()]?[version] else {
                var values = Dictionary(uniqueKeysWithValues: zip(set.columns, set.values))
                values[ReservedColumn.id] = .text(id.uuidString.lowercased())
                values[ReservedColumn.owner] = .text(user.uuidString.lowercased())
                push.rows = [push.table.pushed(values)]
                push.guarded = nil
                return push
            }
            push.rows = [ColumnValues(columns: [version], values: [.int(stale ? number - 1 : number)])]
        }
        return push
    }

    private static func outcome(_ body: () async throws -> Bool) async -> String {
        do {
            return try await body() ? "taken" : "unmatched"
        } catch let error as SyncError {
            return error.serverError?.code ?? "\(error.code)"
        } catch {
            return "\(error)"
        }
    }

    /// How habits, notes and tags differ between the two servers, after `moment`.
    func differences(after moment: String) async throws -> [String] {
        var result: [String] = []
        for table in ["habits", "notes", "tags"] {
            let memoryRows = LifecycleRows(await memory.rows(of: table))
            let postgresRows = try LifecycleRows(connection.execute("select * from public.\(table)"))
            for line in memoryRows.differences(from: postgresRows) { result.append("after \(moment), \(table) \(line)") }
        }
        return result
    }
}

/// A table's rows as text by id and column (PostgreSQL's text format; stamps as sorted JSON),
/// and the ids in server_seq order.
private struct LifecycleRows {
    var values: [String: [String: String]] = [:]
    var order: [String] = []

    /// The in-memory server's rows, by id.
    init(_ rows: [String: ColumnValues]) {
        self.init(rows.map { id, row in (id, Dictionary(uniqueKeysWithValues: zip(row.columns, row.values.map(\.postgresText)))) })
    }

    /// PostgreSQL's rows, in its text format.
    init(_ result: QueryResult) {
        self.init(
            result.rows.map { row in (row[ReservedColumn.id] ?? "", Dictionary(uniqueKeysWithValues: zip(result.columns, row.values))) })
    }

    private init(_ rows: [(id: String, texts: [String: String?])]) {
        var sequence: [(String, Int64)] = []
        for (id, texts) in rows {
            var compared: [String: String] = [:]
            for (column, text) in texts where column != ReservedColumn.serverSeq {
                compared[column] = text.map { column == ReservedColumn.columnStamps ? ColumnStamps(json: $0)?.json ?? $0 : $0 } ?? "null"
            }
            values[id] = compared
            sequence.append((id, texts[ReservedColumn.serverSeq].flatMap { $0.flatMap { Int64($0) } } ?? 0))
        }
        order = sequence.sorted { $0.1 < $1.1 }.map(\.0)
    }

    func differences(from other: LifecycleRows) -> [String] {
        var result: [String] = []
        for id in Set(values.keys).union(other.values.keys).sorted() {
            let mine = values[id] ?? [:]
            let theirs = other.values[id] ?? [:]
            for column in Set(mine.keys).union(theirs.keys).sorted() where mine[column] != theirs[column] {
                result.append(
                    "\(id.prefix(8)).\(column): in memory \(mine[column] ?? "no column"), on PostgreSQL \(theirs[column] ?? "no column")")
            }
        }
        if result.isEmpty, order != other.order { result.append("server_seq orders differ: \(order) and \(other.order)") }
        return result
    }
}
