import Foundation

/// `swift build -c release && .build/release/bench <name>`: each benchmark prints its
/// baseline and the project's figure from one run, side by side, with the ratio.
let benchmarks: [(name: String, summary: String, run: () async throws -> Void)] = [
    ("generate", "generate --check on a 200-table schema beside the project's schema (issue 2)", runGenerateBenchmark),
    ("runtime", "pulling and writing session rows through the runtime beside raw SQLite (issue 4)", runRuntimeBenchmark),
    ("server", "upserts with the generated triggers and policies beside a bare table; a pull's plan (issue 3)", runServerBenchmark),
    ("sync", "initial sync of 100k sessions from PostgreSQL, and idle polls, lookback against exact (issue 5)", runSyncBenchmark),
    (
        "merge", "the same edit history under column and whole-row merge: lost edits; column-merge upserts beside plain (issue 14)",
        runMergeBenchmark
    ),
    (
        "observe", "a 50-row read and two observers during a 100k-row initial sync, beside the read on an idle store (issue 13)",
        runObservationBenchmark
    ),
    (
        "conflicts", "replaying 1,000 queued guarded updates, with 0% and 10% conflicts, beside the bare transport (issue 6)",
        runConflictBenchmark
    ),
    (
        "fleet", "200 devices of 50 users on the engine's schedule against one PostgreSQL, beside one device alone (issue 13)",
        runFleetBenchmark
    ),
]

let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first, let benchmark = benchmarks.first(where: { $0.name == name }) else {
    print("USAGE: bench <name>\n")
    for benchmark in benchmarks { print("  \(benchmark.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(benchmark.summary)") }
    exit(arguments.isEmpty ? 0 : 2)
}
do {
    try await benchmark.run()
} catch {
    FileHandle.standardError.write(Data("bench \(name) failed: \(error)\n".utf8))
    exit(1)
}
