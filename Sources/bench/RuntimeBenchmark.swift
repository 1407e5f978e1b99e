import Foundation
import HopeSchema
import SQLite
import SyncRuntime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 4's benchmark. Pull: (a) raw SQLite upserting N session rows with one prepared
/// statement in one transaction, against (b) the runtime pulling the same N rows as PostgREST
/// JSON pages (PostgRESTTransport, a URLProtocol serving pages written to a file beforehand, and
/// `syncNow()`), and (b') the runtime applying the same pages read beforehand. Local writes: one
/// row per transaction, raw against `store.write { try $0.save(session) }`. Every figure comes
/// from a fresh child process (so each peak memory, VmHWM, is that run's own); the parts run
/// interleaved, three rounds, and each figure is the median round, with CPU time beside wall
/// time because this machine is shared.
func runRuntimeBenchmark() async throws {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    if arguments.first == "child", arguments.count == 3, let count = Int(arguments[2]) {
        let result = try await RuntimeBenchmark.run(arguments[1], rows: count)
        print(result.line)
        return
    }
    print("Runtime benchmark (issue 4): sessions rows, WAL, synchronous=NORMAL; medians of 3 interleaved rounds\n")
    print("                         N   rows/s  ratio  CPU ratio  peak MiB")
    for count in [10_000, 100_000] {
        let results = try RuntimeBenchmark.rounds(["raw-upsert", "pull", "apply"], count)
        RuntimeBenchmark.report("(a) raw upsert", results["raw-upsert"]!, baseline: nil)
        RuntimeBenchmark.report("(b) runtime pull", results["pull"]!, baseline: results["raw-upsert"]!)
        RuntimeBenchmark.report("(b') apply only", results["apply"]!, baseline: results["raw-upsert"]!)
    }
    print("")
    for count in [2_000, 10_000] {
        let results = try RuntimeBenchmark.rounds(["raw-writes", "writes"], count)
        RuntimeBenchmark.report("raw single writes", results["raw-writes"]!, baseline: nil)
        RuntimeBenchmark.report("runtime writes", results["writes"]!, baseline: results["raw-writes"]!)
    }
}

enum RuntimeBenchmark {
    struct Result {
        var rows: Int
        var seconds: Double
        var peakMiB = Measure.peakMemoryMiB() ?? 0

        var rowsPerSecond: Double { Double(rows) / seconds }
        var cpuSeconds = 0.0
        var line: String { "rows=\(rows) seconds=\(seconds) cpu=\(cpuSeconds) peak=\(peakMiB)" }

        init(rows: Int, seconds: Double, cpuSeconds: Double) {
            self.rows = rows
            self.seconds = seconds
            self.cpuSeconds = cpuSeconds
        }

        init?(line: Substring) {
            let fields = Dictionary(
                uniqueKeysWithValues: line.split(separator: " ").compactMap { field -> (String, Double)? in
                    let parts = field.split(separator: "=")
                    return parts.count == 2 ? (String(parts[0]), Double(parts[1]) ?? 0) : nil
                })
            guard let rows = fields["rows"], let seconds = fields["seconds"] else { return nil }
            self.rows = Int(rows)
            self.seconds = seconds
            cpuSeconds = fields["cpu"] ?? 0
            peakMiB = fields["peak"] ?? 0
        }
    }

    static let user = UUID(uuidString: "6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7")!
    static let base: Int64 = 1_800_000_000_000

    /// Runs `parts` in turn, three rounds, each run a fresh process; keeps each part's median.
    static func rounds(_ parts: [String], _ rows: Int) throws -> [String: Result] {
        var runs: [String: [Result]] = [:]
        for _ in 0..<3 {
            for part in parts { runs[part, default: []].append(try childRun(part, rows)) }
        }
        return runs.mapValues { $0.sorted { $0.seconds < $1.seconds }[1] }
    }

    static func report(_ name: String, _ result: Result, baseline: Result?) {
        let ratio = baseline.map { String(format: "%5.2f", result.rowsPerSecond / $0.rowsPerSecond) } ?? "    -"
        let cpu = baseline.map { String(format: "%9.2f", $0.cpuSeconds / result.cpuSeconds) } ?? "        -"
        let label = name.padding(toLength: 20, withPad: " ", startingAt: 0)
        print(
            label + String(format: " %7d  %7.0f  ", result.rows, result.rowsPerSecond) + ratio + "  " + cpu
                + String(format: "  %8.1f", result.peakMiB))
    }

    /// Runs one part in a fresh process of this executable and reads its result line.
    static func childRun(_ part: String, _ rows: Int) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["runtime", "child", part, String(rows)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0, let line = text.split(separator: "\n").last, let result = Result(line: line) else {
            throw SyncError(.configuration, "benchmark part \(part) \(rows) failed: \(text)")
        }
        return result
    }

    static func run(_ part: String, rows: Int) async throws -> Result {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-runtime-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        switch part {
        case "raw-upsert": return try rawUpsert(rows, path: path)
        case "pull": return try await pull(rows, path: path)
        case "apply": return try await apply(rows, path: path)
        case "raw-writes": return try rawWrites(rows, path: path)
        case "writes": return try writes(rows, path: path)
        default: throw SyncError(.configuration, "unknown benchmark part \(part)")
        }
    }

    // MARK: Parts

    static func rawUpsert(_ count: Int, path: String) throws -> Result {
        let queue = try rawDatabase(path)
        return try timed(count) {
            try queue.write { db in
                let statement = try db.cachedStatement(upsertSQL)
                for index in 0..<count { try statement.execute(databaseValues(index)) }
            }
        }
    }

    static func pull(_ count: Int, path: String) async throws -> Result {
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: user, deviceID: "bench")
        let transport = try pageTransport(count)
        let credentials = Credentials(userID: user, accessToken: "token")
        let engine = SyncEngine(store: store, transport: transport, credentials: { credentials })
        return try await timed(count) {
            let report = try await engine.syncNow()
            guard report.pulled == count else { throw SyncError(.configuration, "pulled \(report.pulled) of \(count)") }
        }
    }

    /// The runtime's own share of a pull: the same pages read beforehand (untimed, held in
    /// memory), then applied by `syncNow()`.
    static func apply(_ count: Int, path: String) async throws -> Result {
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: user, deviceID: "bench")
        let transport = try await PreparedPages(count: count, reading: try pageTransport(count))
        let credentials = Credentials(userID: user, accessToken: "token")
        let engine = SyncEngine(store: store, transport: transport, credentials: { credentials })
        return try await timed(count) {
            let report = try await engine.syncNow()
            guard report.pulled == count else { throw SyncError(.configuration, "pulled \(report.pulled) of \(count)") }
        }
    }

    static func rawWrites(_ count: Int, path: String) throws -> Result {
        let queue = try rawDatabase(path)
        return try timed(count) {
            for index in 0..<count {
                try queue.write { db in try db.execute(upsertSQL, databaseValues(index)) }
            }
        }
    }

    static func writes(_ count: Int, path: String) throws -> Result {
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: user, deviceID: "bench")
        let activity = UUID()
        return try timed(count) {
            for index in 0..<count {
                let start = base + Int64(index) * 60_000
                try store.write { try $0.save(Session(activityId: activity, startedMs: start, endedMs: start + 30_000, source: .phone)) }
            }
        }
    }

    /// PostgREST over HTTP, answered by ``PageProtocol`` with `count` session rows, written to a
    /// file beforehand (untimed) so that serving a page costs the "server" nearly nothing and
    /// memory stays flat.
    static func pageTransport(_ count: Int) throws -> PostgRESTTransport {
        let pages = try PageFile(rows: count)
        PageProtocol.pages.withLock { $0 = pages }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [PageProtocol.self]
        return PostgRESTTransport(
            configuration: .init(
                projectURL: URL(string: "https://bench.supabase.test")!, anonKey: "anon",
                session: URLSession(configuration: configuration), accessToken: { "token" }
            ))
    }

    static func timed(_ rows: Int, _ body: () throws -> Void) throws -> Result {
        let cpu = Measure.cpuSeconds()
        let seconds = try Measure.seconds(body)
        return Result(rows: rows, seconds: seconds, cpuSeconds: Measure.cpuSeconds() - cpu)
    }

    static func timed(_ rows: Int, _ body: () async throws -> Void) async throws -> Result {
        let cpu = Measure.cpuSeconds()
        let seconds = try await Measure.secondsAsync(body)
        return Result(rows: rows, seconds: seconds, cpuSeconds: Measure.cpuSeconds() - cpu)
    }

    // MARK: Rows

    static func rawDatabase(_ path: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path)
        try queue.inDatabase { db in for migration in GeneratedSchema.migrations { try db.execute(migration.sql) } }
        return queue
    }

    static let columns = Session.table.columnNames
    static let upsertSQL = """
        INSERT INTO sessions (\(columns.joined(separator: ", ")), _dirty) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")), 0)
        ON CONFLICT (id) DO UPDATE SET \(columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
        """

    static func id(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }
    static let activities = (0..<20).map { _ in UUID().uuidString.lowercased() }
    static let sources = ["desktop", "phone", "watch"]

    static func databaseValues(_ index: Int) -> [DatabaseValue] {
        let start = base + Int64(index) * 60_000
        return [
            .text(id(index)), .text(user.uuidString.lowercased()), .text(activities[index % 20]), .integer(start),
            .integer(start + 30_000), index % 3 == 0 ? .text("note \(index)") : .null, .text(sources[index % 3]),
            .integer(base + Int64(index)), .null, .text("server-device"), .text(stamps(index)), .integer(Int64(index + 1)),
        ]
    }

    /// Row `index`'s column_stamps as the server keeps them: every column written by one write.
    static func stamps(_ index: Int) -> String {
        let stamp = "\"\(String(repeating: "0", count: 2))\(base + Int64(index)):server-device\""
        return "{"
            + ["activity_id", "deleted_ms", "ended_ms", "note", "source", "started_ms"].map { "\"\($0)\":\(stamp)" }.joined(separator: ",")
            + "}"
    }

    /// Row `index` as PostgREST writes it (server_seq = index + 1).
    static func json(_ index: Int) -> String {
        let start = base + Int64(index) * 60_000
        let note = index % 3 == 0 ? "\"note \(index)\"" : "null"
        return
            #"{"id":"\#(id(index))","user_id":"\#(user.uuidString.lowercased())","activity_id":"\#(activities[index % 20])","started_ms":\#(start),"ended_ms":\#(start + 30_000),"note":\#(note),"source":"\#(sources[index % 3])","updated_ms":\#(base + Int64(index)),"deleted_ms":null,"device_id":"server-device","column_stamps":\#(stamps(index)),"server_seq":\#(index + 1)}"#
    }
}

/// Pages read ahead of time, served in order of the cursor asked for.
private struct PreparedPages: SyncTransport {
    let pages: [Int64: PulledPage]

    init(count: Int, reading transport: PostgRESTTransport) async throws {
        let credentials = Credentials(userID: RuntimeBenchmark.user, accessToken: "token")
        var pages: [Int64: PulledPage] = [:]
        var after: Int64 = 0
        while true {
            let page = try await transport.pull(Session.table, after: after, limit: 1_000, as: credentials)
            pages[after] = page
            guard let last = page.lastServerSeq, page.receivedCount == 1_000 else { break }
            after = last
        }
        self.pages = pages
    }

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        UpsertedRows(rows: [])
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        guard table.name == Session.table.name, let page = pages[cursor] else {
            return PulledPage(rows: [], receivedCount: 0, lastServerSeq: nil)
        }
        return page
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] { [] }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] { [] }
}

/// Serves `GET /rest/v1/sessions?...server_seq=gt.N...` from a ``PageFile``; every other table
/// is empty.
private final class PageProtocol: URLProtocol {
    static let pages = Mutex<PageFile?>(nil)

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func stopLoading() {}

    override func startLoading() {
        let url = request.url!
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let after = items.first { $0.name == "server_seq" }?.value.flatMap { Int($0.dropFirst(3)) } ?? 0
        let body = url.lastPathComponent == "sessions" ? Self.pages.withLock { $0?.page(after: after) } ?? Data("[]".utf8) : Data("[]".utf8)
        let response = HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }
}

/// Pages of 1,000 session rows as PostgREST writes them, in a temporary file.
private final class PageFile {
    static let pageSize = 1_000
    private let handle: FileHandle
    private var ranges: [Int: Range<UInt64>] = [:]

    init(rows count: Int) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bench-pages-\(UUID().uuidString).json")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw SyncError(.configuration, "cannot create \(url.path)")
        }
        let writer = try FileHandle(forWritingTo: url)
        var offset: UInt64 = 0
        for start in stride(from: 0, to: count, by: Self.pageSize) {
            let rows = (start..<min(start + Self.pageSize, count)).map(RuntimeBenchmark.json)
            let page = Data(("[" + rows.joined(separator: ",") + "]").utf8)
            try writer.write(contentsOf: page)
            ranges[start] = offset..<(offset + UInt64(page.count))
            offset += UInt64(page.count)
        }
        try writer.close()
        handle = try FileHandle(forReadingFrom: url)
        // Unlinked at once: the open handle keeps reading, and a child process that exits
        // without running deinit leaves nothing behind.
        try? FileManager.default.removeItem(at: url)
    }

    deinit {
        try? handle.close()
    }

    /// The page after server_seq `after`; past the last row, an empty array.
    func page(after: Int) -> Data {
        guard let range = ranges[after] else { return Data("[]".utf8) }
        try? handle.seek(toOffset: range.lowerBound)
        return (try? handle.read(upToCount: Int(range.count))) ?? Data("[]".utf8)
    }
}

/// A value behind a lock.
private final class Mutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
