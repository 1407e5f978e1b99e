import Foundation

/// A sleep function for the engine that waits until the test lets it go, recording each wait.
public final class ManualSleeper: @unchecked Sendable {
    private let lock = NSLock()
    private var nextID = 0
    private var waiting: [Int: (duration: Duration, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var cancelledBeforeStart: Set<Int> = []
    private var started: [Duration] = []
    private var watchers: [Int: (duration: Duration, continuation: CheckedContinuation<Bool, Never>)] = [:]

    public init() {}

    public var sleep: @Sendable (Duration) async throws -> Void {
        { try await self.sleep(for: $0) }
    }

    private func sleep(for duration: Duration) async throws {
        let id = lock.withLock {
            started.append(duration)
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (cancelled, woken) = lock.withLock {
                    if cancelledBeforeStart.remove(id) != nil { return (true, [CheckedContinuation<Bool, Never>]()) }
                    waiting[id] = (duration, continuation)
                    let due = watchers.filter { $0.value.duration == duration }.map(\.key)
                    return (false, due.compactMap { watchers.removeValue(forKey: $0)?.continuation })
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                for watcher in woken { watcher.resume(returning: true) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, any Error>? = lock.withLock {
                if let waiter = waiting.removeValue(forKey: id) { return waiter.continuation }
                cancelledBeforeStart.insert(id)
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// The durations being waited now, shortest first.
    public var pending: [Duration] {
        lock.withLock { waiting.values.map(\.duration).sorted() }
    }

    /// How many sleeps of `duration` have begun, ended or not.
    public func startedCount(_ duration: Duration) -> Int {
        lock.withLock { started.filter { $0 == duration }.count }
    }

    /// Waits until a sleep of `duration` is pending: woken by the sleep itself, so a loaded
    /// machine only makes it later, never a failure. `hangGuard` only ends a test that would
    /// otherwise wait for ever; it is no timing expectation.
    public func waitUntilSleeping(_ duration: Duration, hangGuard: Duration = .seconds(600)) async -> Bool {
        let id = lock.withLock {
            nextID += 1
            return nextID
        }
        let guardTask = Task { [weak self] in
            try await Task.sleep(for: hangGuard)
            self?.wake(id, with: false)
        }
        defer { guardTask.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = lock.withLock {
                if waiting.values.contains(where: { $0.duration == duration }) { return true }
                watchers[id] = (duration, continuation)
                return false
            }
            if ready { continuation.resume(returning: true) }
        }
    }

    private func wake(_ id: Int, with result: Bool) {
        lock.withLock { watchers.removeValue(forKey: id) }?.continuation.resume(returning: result)
    }

    /// Ends every pending sleep of `duration`, as if that time had passed.
    public func elapse(_ duration: Duration) {
        let due = lock.withLock {
            let keys = waiting.filter { $0.value.duration == duration }.map(\.key)
            return keys.compactMap { waiting.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }
}

/// Polls `condition` until it holds (for effects of background tasks). `hangGuard` only ends a
/// test that would otherwise wait for ever: a loaded machine makes the wait longer, not a failure.
public func eventually(
    hangGuard: Duration = .seconds(600), isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + hangGuard
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return false
}
