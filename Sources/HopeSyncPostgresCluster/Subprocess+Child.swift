import Foundation
import HopeSyncLocking

extension Subprocess {
    /// A started child. It is reaped once (by ``wait()`` or ``hasExited``), under a lock that
    /// ``kill(_:)`` takes too, so a signal never reaches a process that has since been given its
    /// pid. Dropped before it is reaped, it is reaped by a thread of its own when it ends.
    public final class Child: Sendable {
        public let command: Command
        public let pid: pid_t
        /// Where this process reads a captured standard output and error (nil when not captured).
        public let output: FileHandle?
        public let error: FileHandle?
        private let ended = Locked<Termination?>(nil)

        init(command: Command, pid: pid_t, output: FileHandle?, error: FileHandle?) {
            self.command = command
            self.pid = pid
            self.output = output
            self.error = error
        }

        deinit {
            guard ended.value == nil else { return }
            let pid = pid
            Thread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            }.start()
        }

        /// Sends `signal`; nothing once the child has been reaped.
        public func kill(_ signal: Int32 = SIGTERM) {
            ended.withLock { ended in
                if ended == nil { _ = Foundation.kill(pid, signal) }
            }
        }

        /// Whether it has ended (reaping it if so).
        public var hasExited: Bool {
            do { return try reap(WNOHANG) != nil } catch { return true }
        }

        /// Waits for it to end, blocking this thread.
        public func wait() throws -> Termination {
            // Until it has ended, without reaping it (WNOWAIT): only reap, under the lock, does.
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
            return try reap(0)!
        }

        /// ``wait()`` on a thread of its own, off Swift's cooperative threads.
        public func wait() async throws -> Termination {
            try await withCheckedThrowingContinuation { continuation in
                Thread { continuation.resume(with: Result { try self.wait() }) }.start()
            }
        }

        /// waitpid with `options`, under the lock; how it ended, or nil while it runs (WNOHANG).
        private func reap(_ options: Int32) throws -> Termination? {
            try ended.withLock { ended in
                if let ended { return ended }
                var status: Int32 = 0
                var reaped: pid_t
                repeat { reaped = waitpid(pid, &status, options) } while reaped == -1 && errno == EINTR
                guard reaped != -1 else {
                    throw Failure("cannot wait for \(command): \(String(cString: strerror(errno)))")
                }
                if reaped == pid { ended = Termination(waitStatus: status) }
                return ended
            }
        }
    }
}
