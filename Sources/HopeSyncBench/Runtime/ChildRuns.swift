import Foundation

/// Parts of a benchmark run each in a fresh process of this executable (`bench <name> child
/// <part> <rows>`), so that each one's peak memory is its own; the child prints one
/// ``Result`` line last.
enum ChildRuns {
    struct Result: Codable {
        var rows: Int
        var seconds: Double
        var cpuSeconds: Double
        var peakMiB = Measure.peakMemoryMiB() ?? 0

        var rowsPerSecond: Double { Double(rows) / seconds }
        var line: String { ChildProcess.line(self) }

        init(rows: Int, seconds: Double, cpuSeconds: Double) {
            (self.rows, self.seconds, self.cpuSeconds) = (rows, seconds, cpuSeconds)
        }

        static func timed(_ rows: Int, _ body: () async throws -> Void) async throws -> Result {
            let cpu = Measure.cpuSeconds()
            let seconds = try await Measure.secondsAsync(body)
            return Result(rows: rows, seconds: seconds, cpuSeconds: Measure.cpuSeconds() - cpu)
        }

        /// Throughput as a share of `baseline`'s (wall time).
        static func / (result: Result, baseline: Result) -> Double { result.rowsPerSecond / baseline.rowsPerSecond }

        /// A line of the report: rows/s, with the ratios to `baseline` on wall and CPU time, and peak memory.
        func row(_ label: String, baseline: Result?) -> String {
            let ratio = baseline.map { String(format: "%5.2f", self / $0) } ?? "    -"
            let cpu = baseline.map { String(format: "%9.2f", $0.cpuSeconds / cpuSeconds) } ?? "        -"
            return label.padded(20) + String(format: " %7d  %7.0f  ", rows, rowsPerSecond) + ratio + "  " + cpu
                + String(format: "  %8.1f", peakMiB)
        }
    }

    /// Runs `parts` in turn, three rounds, each run a fresh process; keeps each part's median.
    static func rounds(_ parts: [String], _ rows: Int) throws -> [String: Result] {
        var runs: [String: [Result]] = [:]
        for _ in 0..<3 {
            for part in parts { runs[part, default: []].append(try childRun(part, rows)) }
        }
        return runs.mapValues { $0.sorted { $0.seconds < $1.seconds }[1] }
    }

    /// Runs one part in a fresh process of this executable and reads its result line.
    static func childRun(_ part: String, _ rows: Int) throws -> Result {
        try ChildProcess.result(Result.self, [part, String(rows)])
    }
}
