import Foundation

/// Timing and memory helpers shared by the benchmarks. Figures are printed, never asserted.
enum Measure {
    /// Wall-clock seconds of `body`.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return since(start)
    }

    static func secondsAsync(_ body: () async throws -> Void) async rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return since(start)
    }

    /// Seconds since `start`, an uptime in nanoseconds.
    static func since(_ start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// User and system time of the whole process (every thread) so far: steadier than wall
    /// time on a shared machine.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The process's peak resident memory so far, in MiB (Linux: VmHWM).
    static func peakMemoryMiB() -> Double? { ownStatus("VmHWM:").map { $0 / 1024 } }

    /// Starts the peak (VmHWM) over from the resident memory now (Linux: /proc/self/clear_refs),
    /// so that it is what comes after, not what the process did before.
    static func resetPeakMemory() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// The resident memory now (VmRSS), in MiB.
    static func residentMemoryMiB() -> Double? { ownStatus("VmRSS:").map { $0 / 1024 } }

    /// This process's threads now.
    static func threadCount() -> Int { Int(ownStatus("Threads:") ?? 0) }

    /// A number from /proc/self/status (Linux).
    private static func ownStatus(_ field: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) }
        return line?.dropFirst(field.count).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }.first
    }

    static func format(_ value: Double, digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }
}

/// A process's CPU time from /proc/PID/stat (Linux): how the benchmarks read what the server
/// spent, steadier than wall time on a shared machine.
struct ProcessStat {
    let parent: Int32
    /// User plus system seconds of the process itself.
    let cpuSeconds: Double
    /// User plus system seconds of its children that it has reaped.
    let reapedChildrenCPUSeconds: Double

    init?(pid: Int32) {
        // Fields after the command name, which is in parentheses and may hold spaces:
        // state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        func seconds(_ range: ClosedRange<Int>) -> Double { fields[range].compactMap { Double($0) }.reduce(0, +) / ticks }
        self.parent = parent
        cpuSeconds = seconds(11...12)
        reapedChildrenCPUSeconds = seconds(13...14)
    }
}

/// Latencies in seconds: how many, the median, the 95th and 99th percentiles (nearest rank) and
/// the most.
struct Latencies {
    let count: Int
    let p50: Double
    let p95: Double
    let p99: Double
    let max: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func at(_ fraction: Double) -> Double { sorted.isEmpty ? .nan : sorted[Int((fraction * Double(sorted.count - 1)).rounded())] }
        p50 = at(0.5)
        p95 = at(0.95)
        p99 = at(0.99)
        max = sorted.last ?? .nan
    }
}
