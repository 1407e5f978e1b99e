import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
import HopeSyncTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `bench files`: a 50 MiB file up to and down from the test Storage server (storage_server.py
/// over a throwaway PostgreSQL with the generated policies), through StorageTransport beside a
/// plain URLSession transfer of the same bytes on the same session and routes, in interleaved
/// rounds (who goes first alternates), each ratio the median of the rounds'. Then the peak
/// resident memory of moving it, plain and through the runtime, each run a process of its own
/// (``FileMemoryChild``).
enum FilesBenchmark {
    static let size = 50 << 20
    static let rounds = 9
    static let memoryRuns = 3

    static func run() async throws -> [Figure] {
        let arguments = Array(CommandLine.arguments.dropFirst(2))
        if arguments.first == "child" {
            print(try await FileMemoryChild.run(Array(arguments.dropFirst())).line)
            return []
        }
        let cluster = try BenchCluster.start()
        defer { cluster.stop() }
        let storage = try BenchStorage(database: try cluster.createDatabase("bench", generatedSchema: true))
        defer { storage.stop() }
        let source = try BenchStorage.randomFile(bytes: size, in: storage.scratch)
        let user = UUID()
        print(
            "Files: a \(size >> 20) MiB file through the test Storage server (Python, aiohttp) on 127.0.0.1; "
                + "StorageTransport beside plain URLSession on one session; release build figures only\n")
        let (upload, download) = try await throughput(source, user: user, storage)
        print("")
        let memory = try memoryRuns(source, user: user, port: storage.server.port)
        return [
            Figure("files.upload_over_plain", upload, aim: 0.8),
            Figure("files.download_over_plain", download, aim: 0.8),
            Figure("files.peak_extra_mib_50mb", memory, aim: 20, digits: 1),
        ]
    }

    /// The median of the rounds' ratios, upload and download (throughput over plain's). A third
    /// upload, plain with a progress delegate, shows what reporting progress costs by itself.
    private static func throughput(_ source: URL, user: UUID, _ storage: BenchStorage) async throws -> (Double, Double) {
        let session = URLSession(configuration: .ephemeral)
        let token = TestJWT.token(for: user)
        let credentials = Credentials(userID: user, accessToken: token)
        let transport = StorageTransport(configuration: .init(projectURL: storage.projectURL, anonKey: "anon", session: session) { nil })
        let plain = PlainTransfer(projectURL: storage.projectURL, session: session, token: token)
        let object = BenchStorage.freshObject(of: user)
        let copy = storage.scratch.appendingPathComponent("copy")
        let steps: [(name: String, run: () async throws -> Void)] = [
            ("plain up", { try await plain.upload(source, as: BenchStorage.freshObject(of: user)) }),
            ("plain+progress up", { try await plain.upload(source, as: BenchStorage.freshObject(of: user), progress: true) }),
            ("up", { try await transport.upload(source, as: BenchStorage.freshObject(of: user), for: credentials) { _ in } }),
            // Both downloads fetch the same object.
            ("plain down", { try await plain.download(object, to: copy) }),
            ("down", { try await transport.download(object, to: copy, for: credentials) { _, _ in } }),
        ]
        try await transport.upload(source, as: object, for: credentials) { _ in }
        let mib = Double(size) / Double(1 << 20)
        var ratios: (up: [Double], down: [Double]) = ([], [])
        print(
            tableRow(
                ["round", "plain up", "+progress", "transport up", "ratio", "plain down", "transport down", "ratio  (MiB/s)"],
                widths: [7, 10, 11, 14, 7, 12, 16]))
        for round in 1...rounds {
            var rate: [String: Double] = [:]
            // Each round starts with another step, so no side always goes first.
            for index in 0..<steps.count {
                let step = steps[(index + round) % steps.count]
                rate[step.name] = mib / (try await Measure.secondsAsync(step.run))
                if step.name.hasSuffix("down") {
                    let bytes = (try FileManager.default.attributesOfItem(atPath: copy.path)[.size] as? NSNumber)?.intValue
                    guard bytes == size else { throw BenchmarkError("\(step.name) came back with \(bytes ?? 0) bytes") }
                    try FileManager.default.removeItem(at: copy)
                }
            }
            ratios.up.append(rate["up"]! / rate["plain up"]!)
            ratios.down.append(rate["down"]! / rate["plain down"]!)
            let cells = [
                rate["plain up"]!, rate["plain+progress up"]!, rate["up"]!, ratios.up.last!, rate["plain down"]!, rate["down"]!,
                ratios.down.last!,
            ]
            print(
                tableRow(
                    [String(round)] + cells.enumerated().map { Measure.format($1, digits: [3, 6].contains($0) ? 2 : 0) },
                    widths: [7, 10, 11, 14, 7, 12, 16]))
        }
        let (up, down) = (Measure.median(ratios.up), Measure.median(ratios.down))
        print("median ratio: upload \(Measure.format(up, digits: 2)), download \(Measure.format(down, digits: 2)) (aim 0.8)")
        return (up, down)
    }

    /// The most extra memory of the runtime's runs (MiB above its idle), plain's printed beside it.
    private static func memoryRuns(_ source: URL, user: UUID, port: Int) throws -> Double {
        print("peak resident memory moving the file, MiB (each run a process of its own; idle: all open, a small file moved)")
        print("run   part      idle   peak  extra  seconds")
        var extra: [FileMemoryChild.Part: [Double]] = [:]
        for run in 1...memoryRuns {
            for part in FileMemoryChild.Part.allCases {
                let result = try child([part.rawValue, String(port), user.uuidString, source.path])
                extra[part, default: []].append(result.extraMiB)
                print(
                    String(format: "%3d  ", run) + part.rawValue.padded(8)
                        + String(format: "  %5.1f  %5.1f  %5.1f  %7.2f", result.idleMiB, result.peakMiB, result.extraMiB, result.seconds))
            }
        }
        let (plain, runtime) = (extra[.plain]!.max()!, extra[.runtime]!.max()!)
        print(
            "most extra: plain \(Measure.format(plain)) MiB; runtime (attach, upload, push; pull, download, hash check) "
                + "\(Measure.format(runtime)) MiB (aim: under 20)")
        return runtime
    }

    private static func child(_ arguments: [String]) throws -> FileMemoryChild.Result {
        try ChildProcess.result(FileMemoryChild.Result.self, arguments)
    }
}
