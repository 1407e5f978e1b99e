import Foundation

/// `swift build -c release --product HopeSyncBench && .build/release/HopeSyncBench <name>`: each
/// benchmark prints its baseline and the project's figure from one run, side by side, and ends
/// with its figures as `FIGURE` lines (docs/BENCHMARKS.md).
struct Benchmark: Sendable {
    let name: String
    let summary: String
    let run: @Sendable () async throws -> [Figure]

    init(_ name: String, _ summary: String, _ run: @escaping @Sendable () async throws -> [Figure]) {
        (self.name, self.summary, self.run) = (name, summary, run)
    }
}

let benchmarks = [
    Benchmark("generate", "generate --check on a 200-table schema beside the project's schema", GenerateCheck.run),
    Benchmark("runtime", "PostgREST pages pulled and session rows written by the runtime, beside raw SQLite", RuntimeBesideRaw.run),
    Benchmark("server", "upserts with the generated triggers and policies beside a bare table; a pull's plan", TriggerCost.run),
    Benchmark("sync", "initial sync of 100k sessions from PostgreSQL beside raw SQLite; idle polls", InitialSync.run),
    Benchmark("merge", "one edit history under column and whole-row merge: lost edits; upsert cost beside plain", ColumnMerge.run),
    Benchmark("observe", "a 50-row read and two observers during a 100k-row initial sync, beside an idle store", ReadsDuringSync.run),
    Benchmark("conflicts", "1,000 queued guarded updates replayed, 0% and 10% conflicts, beside the bare transport", GuardedReplay.run),
    Benchmark("files", "a 50 MiB file up and down through StorageTransport beside plain URLSession; its peak memory", FilesBenchmark.run),
    Benchmark("fleet", "200 devices of 50 users on the engine's schedule against one PostgreSQL, beside one alone", FleetBenchmark.run),
    Benchmark(
        "share", "a member joining a 10k-row list beside an initial sync; idle member of 10 lists; writes above the floor",
        ShareBenchmark.run),
    Benchmark(
        "pokes", "save on A to applied on B with Realtime pokes beside polling only; idle requests per device-minute", PokeBenchmark.run),
    Benchmark(
        "share-pokes",
        "pokes to a shared list's members: fan-out beside a topic per list; a removed member's list gone, pokes beside polling",
        SharePokeBenchmark.run),
]

let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first, let benchmark = benchmarks.first(where: { $0.name == name }) else {
    print("USAGE: HopeSyncBench <name>\n")
    for benchmark in benchmarks { print("  \(benchmark.name.padded(12)) \(benchmark.summary)") }
    exit(arguments.isEmpty ? 0 : 2)
}
// The main thread waits on a semaphore instead of awaiting at top level: top-level await parks it
// in dispatch_main's signal thread, and valgrind's tools crash there as soon as dispatch starts a
// worker for a blocked one; callgrind is how the benchmarks' hot spots are found on a shared machine.
// Detached: a task of the main actor would wait for the main thread, which waits here.
let finished = DispatchSemaphore(value: 0)
Task.detached { [benchmark, name] in
    do {
        Figure.printLines(try await benchmark.run())
    } catch {
        FileHandle.standardError.write(Data("bench \(name) failed: \(error)\n".utf8))
        exit(1)
    }
    finished.signal()
}
finished.wait()
exit(0)
