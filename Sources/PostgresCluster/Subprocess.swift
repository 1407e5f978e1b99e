import Foundation
import Postgres

/// Runs the PostgreSQL tools with posix_spawn and waitpid. Foundation's Process is not used:
/// its waitUntilExit can hang on Linux when called from a task, and its children inherit the
/// test runner's pipes (a server holding them keeps `swift test` waiting).
enum Subprocess {
    /// Runs `command` to its end; its output (stdout and stderr) is returned or thrown.
    @discardableResult
    static func run(_ command: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("hope-sync-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let pid = try spawn(command, outputPath: output.path)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exitCode == 0 else {
            throw PostgresError(message: "\(command.joined(separator: " ")) failed (exit \(exitCode)):\n\(text)")
        }
        return text
    }

    /// Starts `command` in a session of its own and leaves it running (the watchdog).
    static func detach(_ command: [String]) throws {
        _ = try spawn(["/usr/bin/setsid"] + command, outputPath: "/dev/null")
    }

    private static func spawn(_ command: [String], outputPath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Only 0, 1 and 2 reach the child (glibc ignores a close of a descriptor closed since).
        for descriptor in inheritedDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let arguments = command.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, command[0], &actions, nil, arguments, environ)
        guard result == 0 else {
            throw PostgresError(message: "cannot run \(command[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }

    private static func inheritedDescriptors() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }
    }
}
