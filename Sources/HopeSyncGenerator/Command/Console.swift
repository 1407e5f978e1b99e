import Foundation
import HopeSyncLocking

extension GenerateCommand {
    /// Where the command prints: standard output and error by default, a buffer in tests.
    public struct Console: Sendable {
        public var out: @Sendable (String) -> Void
        public var error: @Sendable (String) -> Void

        public init(out: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void) {
            self.out = out
            self.error = error
        }

        public static let standard = Console(
            out: { print($0) },
            error: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
        )

        /// A console that keeps what is printed, for embedding `generate` in other tools.
        public static func recording() -> (Console, Transcript) {
            let transcript = Transcript()
            return (Console(out: { transcript.append($0, error: false) }, error: { transcript.append($0, error: true) }), transcript)
        }
    }

    /// What a recording console was given, line by line.
    public final class Transcript: Sendable {
        private let lines = Locked<(out: [String], error: [String])>(([], []))

        func append(_ line: String, error: Bool) {
            lines.withLock { error ? $0.error.append(line) : $0.out.append(line) }
        }

        public var out: String { lines.withLock { $0.out.joined(separator: "\n") } }
        public var error: String { lines.withLock { $0.error.joined(separator: "\n") } }
    }
}
