import Foundation

/// Up to `limit` threads of their own, taking jobs in arrival order: for work that blocks its
/// thread (a database connection's calls, a wait for a lock) and so must run neither on Swift's
/// cooperative threads, of which there are as many as cores, nor on the shared dispatch threads,
/// which Linux's libdispatch adds only about a second after they are all blocked. A task waiting
/// for its job holds no thread at all. A thread starts when a job finds none free and keeps its
/// `Local` (a connection) from job to job; all end once ``close()`` was called and no job is left.
public final class WorkerThreads<Local>: @unchecked Sendable {
    public typealias Job = (inout Local?) -> Void

    private let limit: Int
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var started = 0
    private var waiting = 0
    private var closed = false

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Queues `job` for the first thread free.
    public func submit(_ job: @escaping Job) {
        condition.withLock {
            jobs.append(job)
            if waiting > 0 { condition.signal() }
            // More jobs queued than threads about to take them: another thread, if allowed.
            if jobs.count > waiting, started < limit {
                started += 1
                Thread { [self] in work() }.start()
            }
        }
    }

    /// Runs `body` on one of the threads, the calling task waiting for it without holding a
    /// thread. `body` may block; what it throws is thrown here.
    public func run<T, E: Error>(_ body: @Sendable (inout Local?) throws(E) -> T) async throws(E) -> T {
        let outcome = await withoutActuallyEscaping(body) { escapable in
            let lent = Lent(escapable)
            return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome<T, E>, Never>) in
                submit { local in continuation.resume(returning: lent.run(&local)) }
            }
        }
        return try outcome.result.get()
    }

    /// How many jobs wait for a thread: work queued behind the one in progress.
    public var queuedCount: Int { condition.withLock { jobs.count } }

    /// Lets the threads end (dropping their `Local`) once no job is left. A job submitted later
    /// still runs, on a thread started for it.
    public func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    private func work() {
        var local: Local?
        while let job = next() { job(&local) }
    }

    /// The oldest job, waiting for one; nil once closed with nothing left (the thread ends).
    private func next() -> Job? {
        condition.withLock {
            while jobs.isEmpty {
                if closed {
                    started -= 1
                    return nil
                }
                waiting += 1
                condition.wait()
                waiting -= 1
            }
            return jobs.removeFirst()
        }
    }
}

/// A caller's closure lent to a worker thread while the caller waits: dropped as soon as it has
/// run, before the caller resumes, so it never outlives the call (`withoutActuallyEscaping`).
private final class Lent<Local, T, E: Error>: @unchecked Sendable {
    private var body: ((inout Local?) throws(E) -> T)?

    init(_ body: @escaping (inout Local?) throws(E) -> T) {
        self.body = body
    }

    func run(_ local: inout Local?) -> Outcome<T, E> {
        defer { body = nil }
        guard let body else { preconditionFailure("a lent closure runs once") }
        return Outcome(result: Result { () throws(E) -> T in try body(&local) })
    }
}

/// A job's result, handed from its thread to the caller waiting for it (and for nothing else).
private struct Outcome<T, E: Error>: @unchecked Sendable {
    let result: Result<T, E>
}
