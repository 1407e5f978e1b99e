import Foundation
import Testing

/// The randomized tests' seeds and runner: `SYNC_RANDOM_RUNS` runs (default `defaultRuns`) from
/// `SYNC_RANDOM_SEED` (default 1), four at a time (each run has its own server and files), the
/// first three failing seeds recorded with the line that replays them, and the numbers of the
/// rest, so a long run outside CI counts every failure.
enum SeededRuns {
    static func seeds(defaultRuns: Int) -> Range<UInt64> {
        let environment = ProcessInfo.processInfo.environment
        let runs = environment["SYNC_RANDOM_RUNS"].flatMap(UInt64.init) ?? UInt64(defaultRuns)
        let first = environment["SYNC_RANDOM_SEED"].flatMap(UInt64.init) ?? 1
        return first..<(first + runs)
    }

    static func recordFailures(
        defaultRuns: Int, _ run: @escaping @Sendable (UInt64) async throws -> [String]
    ) async throws {
        // A run that throws is a failing seed like any other, replayable by its number.
        @Sendable func outcome(of seed: UInt64) async -> [String] {
            do { return try await run(seed) } catch { return ["threw \(error)"] }
        }
        let failures = try await withThrowingTaskGroup(of: (UInt64, [String]).self) { group in
            var failures: [(UInt64, [String])] = []
            var next = seeds(defaultRuns: defaultRuns).makeIterator()
            for _ in 0..<4 {
                if let seed = next.next() { group.addTask { (seed, await outcome(of: seed)) } }
            }
            while let (seed, problems) = try await group.next() {
                if !problems.isEmpty { failures.append((seed, problems)) }
                if let seed = next.next() { group.addTask { (seed, await outcome(of: seed)) } }
            }
            return failures.sorted { $0.0 < $1.0 }
        }
        for (seed, problems) in failures.prefix(3) {
            Issue.record(
                "seed \(seed) (replay: SYNC_RANDOM_SEED=\(seed) SYNC_RANDOM_RUNS=1):\n\(problems.prefix(5).joined(separator: "\n"))")
        }
        if failures.count > 3 {
            let rest = failures.dropFirst(3).map { String($0.0) }.joined(separator: ", ")
            Issue.record("\(failures.count) seeds failed in all; the others: \(rest)")
        }
    }
}
