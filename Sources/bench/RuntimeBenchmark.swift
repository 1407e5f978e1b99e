import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HopeSchema
import SQLite
import SyncRuntime

/// Issue 4's benchmark. Pull: (a) raw SQLite upserting N session rows with one prepared
/// statement in one transaction, against (b) the runtime pulling the same N rows as PostgREST
/// JSON pages (through PostgRESTTransport and a URLProtocol that makes the pages; making them is
/// the server's time, timed apart and left out). Local writes: one row per transaction, raw
/// against `store.write { try $0.save(session) }`. Each figure comes from a fresh child process,
/// so each peak memory (VmHWM) is that run's own.
func runRuntimeBenchmark() async throws {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    if arguments.first == "child", arguments.count == 3, let count = Int(arguments[2]) {
        let result = try await RuntimeBenchmark.run(arguments[1], rows: count)
        print(result.line)
        return
    }
    print("Runtime benchmark (issue 4): sessions rows, WAL, synchronous=NORMAL; each figure the median of 3 child processes\n")
    print("pull             N   raw rows/s  runtime rows/s  ratio b/a  raw MiB  runtime MiB")
    for count in [10_000, 100_000] {
        let raw = try RuntimeBenchmark.child("raw-upsert", count)
        let runtime = try RuntimeBenchmark.child("pull", count)
        print(String(format: "pull     %9d  %11.0f  %14.0f  %9.2f  %7.1f  %11.1f",
                     count, raw.rowsPerSecond, runtime.rowsPerSecond, runtime.rowsPerSecond / raw.rowsPerSecond,
                     raw.peakMiB, runtime.peakMiB))
        print(String(format: "         runtime %.3f s: reading JSON (PostgRESTTransport) %.3f s, applying %.3f s; making the JSON (server side, not counted) %.3f s",
                     runtime.seconds, runtime.decodeSeconds, runtime.seconds - runtime.decodeSeconds, runtime.serverSeconds))
    }
    print("\nlocal writes     N   raw rows/s  runtime rows/s  ratio      raw MiB  runtime MiB")
    for count in [2_000, 10_000] {
        let raw = try RuntimeBenchmark.child("raw-writes", count)
        let runtime = try RuntimeBenchmark.child("writes", count)
        print(String(format: "writes   %9d  %11.0f  %14.0f  %9.2f  %7.1f  %11.1f",
                     count, raw.rowsPerSecond, runtime.rowsPerSecond, runtime.rowsPerSecond / raw.rowsPerSecond,
                     raw.peakMiB, runtime.peakMiB))
    }
}

private enum RuntimeBenchmark {
    struct Result {
        var rows: Int
        var seconds: Double
        var serverSeconds = 0.0
        /// Of `seconds`, the transport's share (reading the JSON pages into rows).
        var decodeSeconds = 0.0
        var peakMiB = Measure.peakMemoryMiB() ?? 0

        var rowsPerSecond: Double { Double(rows) / seconds }
        var line: String { "rows=\(rows) seconds=\(seconds) server=\(serverSeconds) decode=\(decodeSeconds) peak=\(peakMiB)" }

        init(rows: Int, seconds: Double, serverSeconds: Double = 0) {
            self.rows = rows
            self.seconds = seconds
            self.serverSeconds = serverSeconds
        }

        init?(line: Substring) {
            let fields = Dictionary(uniqueKeysWithValues: line.split(separator: " ").compactMap { field -> (String, Double)? in
                let parts = field.split(separator: "=")
                return parts.count == 2 ? (String(parts[0]), Double(parts[1]) ?? 0) : nil
            })
            guard let rows = fields["rows"], let seconds = fields["seconds"] else { return nil }
            self.rows = Int(rows)
            self.seconds = seconds
            serverSeconds = fields["server"] ?? 0
            decodeSeconds = fields["decode"] ?? 0
            peakMiB = fields["peak"] ?? 0
        }
    }

    static let user = UUID(uuidString: "6f1c2a34-5b6d-4e7f-8091-a2b3c4d5e6f7")!
    static let base: Int64 = 1_800_000_000_000

    /// Runs one part three times, each in a fresh process, and keeps the median run (this
    /// machine is shared; one run can be far off).
    static func child(_ part: String, _ rows: Int) throws -> Result {
        let runs = try (0..<3).map { _ in try childRun(part, rows) }.sorted { $0.seconds < $1.seconds }
        return runs[1]
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
        case "raw-writes": return try rawWrites(rows, path: path)
        case "writes": return try writes(rows, path: path)
        default: throw SyncError(.configuration, "unknown benchmark part \(part)")
        }
    }

    // MARK: Parts

    static func rawUpsert(_ count: Int, path: String) throws -> Result {
        let queue = try rawDatabase(path)
        let seconds = try Measure.seconds {
            try queue.write { db in
                let statement = try db.cachedStatement(upsertSQL)
                for index in 0..<count { try statement.execute(databaseValues(index)) }
            }
        }
        return Result(rows: count, seconds: seconds)
    }

    static func pull(_ count: Int, path: String) async throws -> Result {
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: user, deviceID: "bench")
        PageProtocol.total.withLock { $0 = count }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [PageProtocol.self]
        let transport = PostgRESTTransport(configuration: .init(
            projectURL: URL(string: "https://bench.supabase.test")!, anonKey: "anon",
            session: URLSession(configuration: configuration), accessToken: { "token" }
        ))
        let credentials = Credentials(userID: user, accessToken: "token")
        let engine = SyncEngine(store: store, transport: transport, credentials: { credentials })
        var report = SyncReport()
        let seconds = try await Measure.seconds { report = try await engine.syncNow() }
        guard report.pulled == count else { throw SyncError(.configuration, "pulled \(report.pulled) of \(count)") }
        let server = PageProtocol.serverSeconds.withLock { $0 }
        var result = Result(rows: count, seconds: seconds - server, serverSeconds: server)
        // The transport alone, on the same pages: what of the pull is reading JSON.
        PageProtocol.serverSeconds.withLock { $0 = 0 }
        let decode = try await Measure.seconds {
            var after: Int64 = 0
            while true {
                let page = try await transport.pull(Session.table, after: after, limit: 1_000, as: credentials)
                guard let last = page.lastServerSeq, page.receivedCount == 1_000 else { break }
                after = last
            }
        }
        result.decodeSeconds = decode - PageProtocol.serverSeconds.withLock { $0 }
        return result
    }

    static func rawWrites(_ count: Int, path: String) throws -> Result {
        let queue = try rawDatabase(path)
        let seconds = try Measure.seconds {
            for index in 0..<count {
                try queue.write { db in try db.execute(upsertSQL, databaseValues(index)) }
            }
        }
        return Result(rows: count, seconds: seconds)
    }

    static func writes(_ count: Int, path: String) throws -> Result {
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: user, deviceID: "bench")
        let activity = UUID()
        let seconds = try Measure.seconds {
            for index in 0..<count {
                let start = base + Int64(index) * 60_000
                try store.write { try $0.save(Session(activityId: activity, startedMs: start, endedMs: start + 30_000, source: .phone)) }
            }
        }
        return Result(rows: count, seconds: seconds)
    }

    // MARK: Rows

    static func rawDatabase(_ path: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path)
        try queue.inDatabase { db in try db.execute(GeneratedSchema.migrations[0].sql) }
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
            .integer(base + Int64(index)), .null, .text("server-device"), .integer(Int64(index + 1)),
        ]
    }

    /// Row `index` as PostgREST writes it (server_seq = index + 1).
    static func json(_ index: Int) -> String {
        let start = base + Int64(index) * 60_000
        let note = index % 3 == 0 ? "\"note \(index)\"" : "null"
        return #"{"id":"\#(id(index))","user_id":"\#(user.uuidString.lowercased())","activity_id":"\#(activities[index % 20])","started_ms":\#(start),"ended_ms":\#(start + 30_000),"note":\#(note),"source":"\#(sources[index % 3])","updated_ms":\#(base + Int64(index)),"deleted_ms":null,"device_id":"server-device","server_seq":\#(index + 1)}"#
    }
}

/// Serves `GET /rest/v1/sessions?...server_seq=gt.N...&limit=M` from generated rows; every other
/// table is empty.
private final class PageProtocol: URLProtocol {
    static let total = Mutex(0)
    static let serverSeconds = Mutex(0.0)

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func stopLoading() {}

    override func startLoading() {
        let url = request.url!
        var body = Data()
        let seconds = Measure.seconds {
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let after = items.first { $0.name == "server_seq" }?.value.flatMap { Int($0.dropFirst(3)) } ?? 0
            let limit = items.first { $0.name == "limit" }?.value.flatMap(Int.init) ?? 1_000
            let end = url.lastPathComponent == "sessions" ? min(after + limit, Self.total.withLock { $0 }) : after
            body = Data(("[" + (after..<max(after, end)).map(RuntimeBenchmark.json).joined(separator: ",") + "]").utf8)
        }
        Self.serverSeconds.withLock { $0 += seconds }
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
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
