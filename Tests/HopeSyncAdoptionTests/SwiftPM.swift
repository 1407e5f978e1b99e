import Foundation

/// Runs `swift` (build, run, package) on the habit app as a user would. The app is built from a
/// copy under hope-sync's .build (made once per test run, at one fixed place, with one scratch
/// path of its own): repeated runs build incrementally, the tests may change the copy, and
/// nothing lands in the fixture. SwiftPM keeps a scratch path's plan per root package, so the
/// copy is the only root ever built there.
struct SwiftPM {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixture = root.appendingPathComponent("Tests/Fixtures/HabitApp")
    static let scratch = root.appendingPathComponent(".build/fixtures/HabitApp-build")
    /// The copy the tests build.
    static let habitApp: URL = {
        do { return try copyOfHabitApp() } catch { fatalError("cannot copy \(fixture.path): \(error)") }
    }()

    struct Result {
        let status: Int32
        let output: String
        var warnings: [String] { output.split(separator: "\n").map(String.init).filter { $0.contains("warning:") } }
    }

    /// `swift <arguments> --scratch-path <scratch>` in `package`, standard output and error together.
    static func run(_ arguments: [String], in package: URL) async throws -> Result {
        try await execute("swift", [arguments[0], "--scratch-path", scratch.path] + arguments.dropFirst(), in: package)
    }

    /// The habit app's executable, after `swift build`.
    static var habitAppBinary: String { scratch.appendingPathComponent("debug/HabitApp").path }

    /// The fixture, copied with hope-sync as an absolute path dependency.
    private static func copyOfHabitApp() throws -> URL {
        let parent = root.appendingPathComponent(".build/fixtures/package")
        try? FileManager.default.removeItem(at: parent)
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let copy = parent.appendingPathComponent("HabitApp")
        try FileManager.default.copyItem(at: fixture, to: copy)
        let manifest = copy.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let moved = text.replacingOccurrences(of: #"let hopeSyncPath = "../../..""#, with: "let hopeSyncPath = \"\(root.path)\"")
        precondition(moved != text, "the fixture's Package.swift no longer sets hopeSyncPath")
        try Data(moved.utf8).write(to: manifest)
        return copy
    }

    /// Runs `body`, then puts back the copy's schema.yaml and Generated/ as they were.
    static func restoringSchema<T>(_ body: () async throws -> T) async throws -> T {
        let files = FileManager.default
        let saved = root.appendingPathComponent(".build/fixtures/saved")
        try? files.removeItem(at: saved)
        try files.createDirectory(at: saved, withIntermediateDirectories: true)
        for name in ["schema.yaml", "Generated"] {
            try files.copyItem(at: habitApp.appendingPathComponent(name), to: saved.appendingPathComponent(name))
        }
        defer {
            for name in ["schema.yaml", "Generated"] {
                try? files.removeItem(at: habitApp.appendingPathComponent(name))
                try? files.copyItem(at: saved.appendingPathComponent(name), to: habitApp.appendingPathComponent(name))
            }
        }
        return try await body()
    }
}
