import Foundation
import SyncRuntime

/// The engine's sleep, held until the test lets it go: the schedule runs without real time
/// passing, and the test sees every wait the engine asks for.
final class ManualSleeper: @unchecked Sendable {
    private let lock = NSLock()
    private var nextID = 0
    private var waiting: [Int: (duration: Duration, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var cancelledEarly: Set<Int> = []

    var sleep: @Sendable (Duration) async throws -> Void {
        { try await self.sleep(for: $0) }
    }

    private func sleep(for duration: Duration) async throws {
        let id = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancelled = lock.withLock {
                    if cancelledEarly.remove(id) != nil { return true }
                    waiting[id] = (duration, continuation)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = lock.withLock {
                if let waiter = waiting.removeValue(forKey: id) { return Optional(waiter.continuation) }
                cancelledEarly.insert(id)
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// The waits in progress, shortest first.
    var pending: [Duration] {
        lock.withLock { waiting.values.map(\.duration).sorted() }
    }

    /// Waits (in real time) until a wait of `duration` is in progress.
    func waitUntilSleeping(_ duration: Duration, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if pending.contains(duration) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Ends every wait of `duration`, as if that time had passed.
    func elapse(_ duration: Duration) {
        let due = lock.withLock {
            let keys = waiting.filter { $0.value.duration == duration }.map(\.key)
            return keys.compactMap { waiting.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }
}

/// A transport that counts the upserts it passes on, per table.
final class CountingTransport: SyncTransport, @unchecked Sendable {
    let base: any SyncTransport
    private let lock = NSLock()
    private var upserts: [String: Int] = [:]

    init(_ base: any SyncTransport) {
        self.base = base
    }

    func upserts(into table: String) -> Int {
        lock.withLock { upserts[table] ?? 0 }
    }

    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) {
        lock.withLock { upserts[table.name, default: 0] += 1 }
        try await base.upsert(rows, into: table, as: user)
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        try await base.pull(table, after: cursor, limit: limit, as: user)
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        try await base.guardedUpdate(
            table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
    }

    func fetch(_ table: TableSchema, id: UUID, columns: [String], as user: Credentials) async throws(SyncError) -> ColumnValues? {
        try await base.fetch(table, id: id, columns: columns, as: user)
    }
}

/// Polls `condition` briefly in real time, for effects of the engine's background tasks.
func eventually(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return false
}
