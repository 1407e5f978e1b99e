import Foundation

/// The one way the tests, the benchmarks and the cluster run programs: posix_spawn, and waitpid
/// on the child's own pid. Foundation's Process is not used: a test run once hung for good in its
/// `waitUntilExit()` on a child that had exited and stayed defunct, never reaped by Process's
/// child monitor. A child here starts with standard input on /dev/null, no signal blocked or
/// ignored, and no descriptor of this process's but 0, 1 and 2 (a server holding the test
/// runner's pipes would keep `swift test` waiting).
public enum Subprocess {
    /// A program to run, where it runs, and where its output goes.
    public struct Command: Sendable, CustomStringConvertible {
        /// A path, or a name looked up on the PATH.
        public var executable: String
        public var arguments: [String]
        /// Where it runs; nil: this process's working directory.
        public var directory: URL?
        /// Its whole environment; nil: this process's.
        public var environment: [String: String]?
        public var output: Output
        public var error: Output

        public init(
            _ executable: String, _ arguments: [String] = [], in directory: URL? = nil, environment: [String: String]? = nil,
            output: Output = .capture, error: Output = .capture
        ) {
            self.executable = executable
            self.arguments = arguments
            self.directory = directory
            self.environment = environment
            self.output = output
            self.error = error
        }

        public var description: String { ([executable] + arguments).joined(separator: " ") }
    }

    /// Where a child's standard output or error goes.
    public enum Output: Sendable, Equatable {
        /// To this process: `run` puts it in the outcome; `start` hands over a pipe's read end
        /// (``Child/output``).
        case capture
        /// To /dev/null.
        case discard
        /// To this process's own.
        case inherit
        /// Standard error only: into standard output, interleaved as written (`2>&1`).
        case intoOutput
    }

    /// How a child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        /// From waitpid's status (its macros are not imported).
        init(waitStatus: Int32) {
            let signal = waitStatus & 0x7f
            self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
        }

        /// The exit code, or 128 + the signal, as a shell reports it.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        }

        /// The signal that ended it, if one did.
        public var signal: Int32? {
            if case .signaled(let signal) = self { signal } else { nil }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    /// A child run to its end.
    public struct Outcome: Sendable {
        public let command: Command
        public let termination: Termination
        /// What it wrote, when captured (empty otherwise).
        public let output: Data
        public let error: Data

        public var status: Int32 { termination.status }
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: error, as: UTF8.self) }

        /// This outcome if the command exited 0; otherwise a ``Failure`` naming the command, how it
        /// ended and its error output (its output, when the error went there).
        @discardableResult
        public func checked() throws -> Outcome {
            guard termination != .exited(0) else { return self }
            throw Failure("\(command) failed (\(termination)):\n\(errorText.isEmpty ? outputText : errorText)")
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs `command` to its end, blocking this thread; any exit is an outcome. Captured output
    /// goes to nameless scratch files, read once the child has ended: a child never waits on a
    /// full pipe, and a server it leaves running cannot hold the run open.
    public static func run(_ command: Command) throws -> Outcome {
        let child = try spawn(command, capture: .file)
        let termination = try child.wait()
        return Outcome(command: command, termination: termination, output: try readAll(child.output), error: try readAll(child.error))
    }

    /// `run` on a thread of its own: a test waiting minutes for a build must not hold one of
    /// Swift's few cooperative threads, which every other test needs.
    public static func run(_ command: Command) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try run(command) }) }.start()
        }
    }

    /// Starts `command` and leaves it running: a server, or a child a test kills. Captured output
    /// comes through a pipe, for the caller to read as it comes.
    public static func start(_ command: Command) throws -> Child {
        try spawn(command, capture: .pipe)
    }

    private static func readAll(_ file: FileHandle?) throws -> Data {
        guard let file else { return Data() }
        try file.seek(toOffset: 0)
        return try file.readToEnd() ?? Data()
    }
}
