import Foundation
import HopeSyncPostgresClient

/// A throwaway PostgreSQL cluster in a temporary directory, for tests and benchmarks: initdb,
/// then a server on a unix socket and a free 127.0.0.1 port, with fsync off.
///
/// Stopped by ``stop()``, and also by a watchdog shell started with it that waits for this
/// process to end, so a crashed or killed test run leaves no server behind.
public final class TemporaryCluster: Sendable {
    public let directory: URL
    public let port: Int
    /// The superuser `postgres`, trusted without a password.
    public let user = "postgres"
    private let binaries: URL
    private let runsAsPostgres: Bool

    /// Starts a cluster; throws a ``PostgresError`` holding the server log's tail when it cannot.
    public init(version: Int = 15) throws {
        binaries = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
        runsAsPostgres = getuid() == 0
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("hope-sync-pg-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))")
        port = try Self.freePort()

        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // From here on the watchdog removes the directory (and stops the server) at exit.
        startWatchdog()
        // initdb refuses to run as root: the cluster belongs to the postgres user then.
        if runsAsPostgres { try Self.run(["/usr/bin/chown", "postgres:postgres", directory.path]) }
        try asOwner("initdb", "-D", dataPath, "-U", user, "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        do {
            try asOwner(
                "pg_ctl", "-D", dataPath, "-l", logPath, "-w", "-o",
                "-k \(directory.path) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
                "start")
        } catch {
            throw PostgresError(message: "PostgreSQL did not start: \(error)\n--- server log ---\n\(logTail())")
        }
    }

    /// A libpq URL for a database of this cluster, over TCP.
    public func url(database: String = "postgres") -> String {
        "postgresql://\(user)@127.0.0.1:\(port)/\(database)"
    }

    /// Stops the server at once (`-m fast`) and removes its files. Safe to call twice.
    public func stop() {
        guard FileManager.default.fileExists(atPath: dataPath) else { return }
        _ = try? asOwner("pg_ctl", "-D", dataPath, "-m", "fast", "-w", "stop")
        try? FileManager.default.removeItem(at: directory)
    }

    /// The last lines of the server log, for error messages.
    public func logTail(lines: Int = 30) -> String {
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "(no server log)"
        return log.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    private var dataPath: String { directory.appendingPathComponent("data").path }
    private var logPath: String { directory.appendingPathComponent("server.log").path }

    private func startWatchdog() {
        let owner = runsAsPostgres ? "runuser -u postgres -- " : ""
        let script = """
            while kill -0 \(ProcessInfo.processInfo.processIdentifier) 2>/dev/null; do sleep 1; done
            \(owner)\(binaries.path)/pg_ctl -D '\(dataPath)' -m fast -w stop
            rm -rf '\(directory.path)'
            """
        // In a session of its own, left running (the dropped Child is reaped when it ends).
        _ = try? Subprocess.start(.init("/usr/bin/setsid", ["/bin/sh", "-c", script], output: .discard, error: .discard))
    }

    @discardableResult
    private func asOwner(_ tool: String, _ arguments: String...) throws -> String {
        let command = [binaries.appendingPathComponent(tool).path] + arguments
        return try Self.run(runsAsPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command)
    }

    /// Runs `line` to a zero exit: its output (and error), or a PostgresError with them.
    @discardableResult
    private static func run(_ line: [String]) throws -> String {
        do {
            return try Subprocess.run(.init(line[0], Array(line.dropFirst()), error: .intoOutput)).checked().outputText
        } catch {
            throw PostgresError(message: "\(error)")
        }
    }

    /// A port nobody listens on now: bind to port 0 and ask which one the kernel chose.
    private static func freePort() throws -> Int {
        #if canImport(Glibc)
            let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let socket = Foundation.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw PostgresError(message: "cannot open a socket to find a free port") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else { throw PostgresError(message: "cannot find a free TCP port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
