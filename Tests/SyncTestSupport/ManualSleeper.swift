import Foundation

/// A sleep function for the engine that waits until the test lets it go, recording each wait.
public final class ManualSleeper: @unchecked Sendable {
    private let lock = NSLock()
    private var nextID = 0
    private var waiting: [Int: (duration: Duration, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var cancelledBeforeStart: Set<Int> = []
    private var started: [Duration] = []

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
                let cancelled = lock.withLock {
                    if cancelledBeforeStart.remove(id) != nil { return true }
                    waiting[id] = (duration, continuation)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
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

    /// Waits (in real time, briefly) until a sleep of `duration` is pending.
    public func waitUntilSleeping(_ duration: Duration, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if pending.contains(duration) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
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

/// Polls `condition` briefly in real time (for effects of background tasks).
public func eventually(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return false
}
