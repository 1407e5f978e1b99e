import Foundation

/// A Tests/Servers script run to its end in the test servers' Python (a conformance check, say).
public enum PythonScript {
    /// Its output (stdout and stderr); a failing exit throws, with the output.
    @discardableResult
    public static func run(_ script: String, arguments: [String] = [], root: URL) throws -> String {
        let python = try PythonServer.interpreter(root: root)
        let path = root.appendingPathComponent("Tests/Servers/\(script)").path
        return try Subprocess.run(.init(python.path, ["-u", path] + arguments, error: .intoOutput)).checked().outputText
    }
}
