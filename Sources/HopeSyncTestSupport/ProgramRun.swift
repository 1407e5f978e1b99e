import Foundation
import HopeSyncPostgresCluster

/// A program run to its end from a test, with what it wrote (standard output and error together).
public enum ProgramRun {
    /// `path` may also be a name looked up on the PATH.
    public static func execute(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let outcome = try Subprocess.run(.init(path, arguments, error: .intoOutput))
        return (outcome.status, outcome.outputText)
    }

    public static func rustc(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try execute(rustTool("rustc"), arguments)
    }

    /// A Rust tool (`rustc`, `cargo`) from where rustup puts it, or its name for the PATH (CI's
    /// shell may lack ~/.cargo/bin).
    public static func rustTool(_ name: String) -> String {
        let rustup = (ProcessInfo.processInfo.environment["HOME"] ?? "/root") + "/.cargo/bin/" + name
        return FileManager.default.isExecutableFile(atPath: rustup) ? rustup : name
    }
}
