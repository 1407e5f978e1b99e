import Foundation
import PostgresCluster

/// A program run to its end from a test, with what it wrote (standard output and error together).
public enum ProgramRun {
    /// `path` may also be a name looked up on the PATH.
    public static func execute(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let outcome = try Subprocess.run(.init(path, arguments, error: .intoOutput))
        return (outcome.status, outcome.outputText)
    }

    /// rustc from where rustup puts it, or from the PATH (CI's shell may lack ~/.cargo/bin).
    public static func rustc(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        let rustup = home + "/.cargo/bin/rustc"
        return try execute(FileManager.default.isExecutableFile(atPath: rustup) ? rustup : "rustc", arguments)
    }
}
