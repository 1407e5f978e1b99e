import Foundation

/// A program run to its end from a test, with what it wrote (standard output and error together).
public enum ProgramRun {
    public static func execute(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// rustc from where rustup puts it, or from the PATH (CI's shell may lack ~/.cargo/bin).
    public static func rustc(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        let rustup = home + "/.cargo/bin/rustc"
        if FileManager.default.isExecutableFile(atPath: rustup) { return try execute(rustup, arguments) }
        return try execute("/usr/bin/env", ["rustc"] + arguments)
    }
}
