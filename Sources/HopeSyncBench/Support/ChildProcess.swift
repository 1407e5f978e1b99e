import Foundation
import HopeSyncPostgresCluster

/// A part of a benchmark run in a fresh process of this executable (`bench <name> child ...`), so
/// that what it measures of memory is its own: the child prints its result as the last line of
/// its output, and the parent reads it.
enum ChildProcess {
    /// Runs `bench <this benchmark> child <arguments...>` and returns its last line of output.
    /// `BENCH_CHILD_PREFIX` runs it under another program, to profile one part alone:
    /// `BENCH_CHILD_PREFIX="valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p"`.
    private static func run(_ arguments: [String]) throws -> Substring {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let prefix = ProcessInfo.processInfo.environment["BENCH_CHILD_PREFIX"].map { $0.split(separator: " ").map(String.init) } ?? []
        let command = prefix + [executable, CommandLine.arguments[1], "child"] + arguments
        let child = try Subprocess.run(.init(command[0], Array(command.dropFirst()), error: .inherit))
        let text = child.outputText
        guard child.status == 0, let line = text.split(separator: "\n").last else {
            throw BenchmarkError("benchmark part \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return line
    }

    /// A child's result line: one JSON object.
    static func line(_ result: some Encodable) -> String {
        String(decoding: try! JSONEncoder().encode(result), as: UTF8.self)
    }

    /// Runs `bench <this benchmark> child <arguments...>` and reads its result line.
    static func result<Result: Decodable>(_ type: Result.Type, _ arguments: [String]) throws -> Result {
        let line = try run(arguments)
        do {
            return try JSONDecoder().decode(type, from: Data(line.utf8))
        } catch {
            throw BenchmarkError("benchmark part \(arguments.joined(separator: " ")) printed \(line)")
        }
    }
}
