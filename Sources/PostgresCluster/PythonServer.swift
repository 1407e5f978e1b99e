import Foundation

/// A test server written in Python (Tests/Servers), run in the virtual environment that
/// `scripts/python-env` makes (`scripts/test` makes it first). It announces its port on its first
/// line of output, and exits with the process that started it (Tests/Servers/serving.py).
public final class PythonServer: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let process: Process

    /// Starts `Tests/Servers/<script>` with `arguments`, and waits for its port.
    public init(script: String, arguments: [String] = [], root: URL) throws {
        let python = try Self.interpreter(root: root)
        let process = Process()
        process.executableURL = python
        process.arguments = ["-u", root.appendingPathComponent("Tests/Servers/\(script)").path] + arguments
        process.currentDirectoryURL = root.appendingPathComponent("Tests/Servers")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        guard let line = Self.firstLine(of: output.fileHandleForReading), line.hasPrefix("listening "),
            let port = Int(line.dropFirst("listening ".count))
        else {
            process.terminate()
            throw Failure(description: "\(script) did not say which port it listens on")
        }
        self.port = port
        self.process = process
    }

    /// The virtual environment's python, or the failure that says how to make it.
    static func interpreter(root: URL) throws -> URL {
        let python = root.appendingPathComponent(".build/test-python/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Failure(
                description: "the test servers' Python is missing (\(python.path)): scripts/test makes it (scripts/python-env)")
        }
        return python
    }

    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    private static func firstLine(of handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
