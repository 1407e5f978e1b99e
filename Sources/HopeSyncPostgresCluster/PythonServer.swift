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
    private let child: Subprocess.Child

    /// Starts `Tests/Servers/<script>` with `arguments`, and waits for its port.
    public init(script: String, arguments: [String] = [], root: URL) throws {
        let python = try Self.interpreter(root: root)
        let child = try Subprocess.start(
            .init(
                python.path, ["-u", root.appendingPathComponent("Tests/Servers/\(script)").path] + arguments,
                in: root.appendingPathComponent("Tests/Servers"), error: .inherit))
        guard let output = child.output, let line = Self.firstLine(of: output), line.hasPrefix("listening "),
            let port = Int(line.dropFirst("listening ".count))
        else {
            child.kill()
            throw Failure(description: "\(script) did not say which port it listens on")
        }
        self.port = port
        self.child = child
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
        child.kill()
        _ = try? child.wait()
    }

    deinit {
        child.kill()
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
