import Foundation
import HopeSyncPostgresCluster
import Testing

/// Subprocess, which every test and benchmark runs its programs with (the cluster's tools, the
/// Python servers, rustc, swift, cargo).
@Suite struct SubprocessTests {
    /// A megabyte on each stream: neither waits on the other, and each lands where it belongs.
    @Test func capturesMuchOutputAndErrorApartWithTheExitCode() throws {
        let script = "head -c 1000000 /dev/zero; head -c 1000000 /dev/zero >&2; exit 3"
        let outcome = try Subprocess.run(.init("sh", ["-c", script]))
        #expect(outcome.termination == .exited(3) && outcome.status == 3)
        #expect(outcome.output.count == 1_000_000 && outcome.error.count == 1_000_000)
    }

    @Test func errorIntoOutputKeepsTheOrderWritten() throws {
        let outcome = try Subprocess.run(.init("/bin/sh", ["-c", "echo a; echo b >&2; echo c"], error: .intoOutput))
        #expect(outcome.outputText == "a\nb\nc\n" && outcome.error.isEmpty)
    }

    @Test func runsInItsDirectoryWithItsEnvironment() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try await Subprocess.run(
            .init("/bin/sh", ["-c", "pwd -P; echo \"$ONLY\"; echo \"$HOME\""], in: folder, environment: ["ONLY": "this"]))
        #expect(outcome.outputText == "\(folder.resolvingSymlinksInPath().path)\nthis\n\n")
    }

    /// No descriptor of the parent's but 0, 1 and 2, nor a signal blocked or ignored, reaches a child.
    @Test func aChildStartsClean() throws {
        let leaky = open("/dev/null", O_RDONLY)
        defer { close(leaky) }
        let descriptors = try Subprocess.run(.init("/bin/sh", ["-c", "[ -e /proc/self/fd/\(leaky) ] && echo leaked || echo closed"]))
        #expect(descriptors.outputText == "closed\n")
        // Masks in hexadecimal, signal n at bit n - 1. The standard signals (1 to 31) count: glibc's
        // posix_spawn ignores two of its own above them, which the program's C library sets up again.
        let signals = try Subprocess.run(.init("grep", ["-E", "^Sig(Blk|Ign)", "/proc/self/status"]))
        let masks = signals.outputText.split(separator: "\n").compactMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        #expect(masks.count == 2 && masks[0] == 0 && masks[1] & 0x7fff_ffff == 0, "\(signals.outputText)")
    }

    @Test func checkedNamesTheCommandAndItsError() throws {
        let failure = try #require(throws: Subprocess.Failure.self) {
            try Subprocess.run(.init("/bin/sh", ["-c", "echo out; echo why >&2; exit 2"])).checked()
        }
        #expect(failure.description == "/bin/sh -c echo out; echo why >&2; exit 2 failed (exit 2):\nwhy\n")
        #expect(throws: Subprocess.Failure.self) { try Subprocess.run(.init("no-such-program-anywhere")) }
    }

    @Test func aStartedChildIsKilledAndWaitedFor() async throws {
        let child = try Subprocess.start(.init("sh", ["-c", "echo ready; exec sleep 60"]))
        #expect(child.output?.readData(ofLength: 6) == Data("ready\n".utf8))
        #expect(!child.hasExited)
        child.kill()
        #expect(try await child.wait() == .signaled(SIGTERM))
        #expect(child.hasExited)
        child.kill()
    }
}
