import Foundation
import HopeSyncPostgresCluster
import HopeSyncTestSupport

/// Builds and runs Tests/Fixtures/RustClient with cargo, offline (its .cargo/config.toml points
/// at Debian's crate sources), into a target folder under hope-sync's .build.
struct Cargo {
    static let client = SwiftPM.root.appendingPathComponent("Tests/Fixtures/RustClient")
    static let target = SwiftPM.root.appendingPathComponent(".build/fixtures/rust-target")
    static var binary: URL { target.appendingPathComponent("debug/habit-rust-client") }
    /// The task lists' client, on the project's own tables.rs (shared lists).
    static var listsBinary: URL { target.appendingPathComponent("debug/lists-rust-client") }

    /// `cargo build` with warnings denied for the client's own code (crates' lints are capped).
    static func build() async throws -> SwiftPM.Result {
        guard FileManager.default.fileExists(atPath: "/usr/share/cargo/registry") else {
            return SwiftPM.Result(
                status: 1,
                output:
                    "Debian's Rust crate sources (/usr/share/cargo/registry) are missing; scripts/test installs them with the other test dependencies (scripts/install-dependencies)"
            )
        }
        return try await execute(
            ProgramRun.rustTool("cargo"), ["build", "--target-dir", target.path], in: client, environment: ["RUSTFLAGS": "-D warnings"])
    }

    static func client(_ arguments: String...) async throws -> SwiftPM.Result {
        try await execute(binary.path, arguments, in: client)
    }

    static func listsClient(_ arguments: [String]) async throws -> SwiftPM.Result {
        try await execute(listsBinary.path, arguments, in: client)
    }
}

/// Runs `executable` (a path, or a name looked up on the PATH), output and error together, with
/// `environment` added to this process's. Subprocess waits for it on a thread of its own (a build
/// can take a minute).
func execute(
    _ executable: String, _ arguments: [String], in directory: URL, environment: [String: String] = [:]
) async throws -> SwiftPM.Result {
    let outcome = try await Subprocess.run(
        .init(
            executable, arguments, in: directory, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            error: .intoOutput))
    return SwiftPM.Result(status: outcome.status, output: outcome.outputText)
}
