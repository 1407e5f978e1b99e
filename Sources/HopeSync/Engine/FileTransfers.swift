import Foundation
import HopeSyncLocking

/// One transfer per object at a time: a second request for an object already moving waits for
/// that transfer's outcome instead of starting its own (the engine's pass and an app's read can
/// ask for the same file at once). And the transfers in progress, for the app to watch.
actor FileTransfers {
    private var waiting: [FileObject: [CheckedContinuation<Result<Void, SyncError>, Never>]] = [:]
    private var progress: [FileObject: SyncFileTransfer] = [:]
    private var observers: [UUID: AsyncStream<[SyncFileTransfer]>.Continuation] = [:]

    /// Runs `operation` for `object` alone, or waits for the run already under way and shares its
    /// outcome. The first caller's task runs it, so cancelling that task cancels the transfer.
    func exclusively(
        _ object: FileObject, _ direction: SyncFileTransfer.Direction,
        _ operation: @Sendable (_ progress: @escaping @Sendable (Int64, Int64?) -> Void) async -> Result<Void, SyncError>
    ) async -> Result<Void, SyncError> {
        if waiting[object] != nil {
            return await withCheckedContinuation { waiting[object, default: []].append($0) }
        }
        waiting[object] = []
        update(SyncFileTransfer(object: object, direction: direction, bytesDone: 0, bytesTotal: nil))
        let result = await operation(reporter(for: object, direction))
        for waiter in waiting.removeValue(forKey: object) ?? [] { waiter.resume(returning: result) }
        progress[object] = nil
        publish()
        return result
    }

    /// The transfers in progress now and after every change; ending the iteration unsubscribes.
    nonisolated func updates() -> AsyncStream<[SyncFileTransfer]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [SyncFileTransfer].self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        continuation.onTermination = { _ in Task { await self.removeObserver(id) } }
        Task { await self.addObserver(id, continuation) }
        return stream
    }

    /// A progress callback for URLSession's threads that reports at most every 1% or 1 MiB,
    /// so a large transfer does not flood the actor.
    private nonisolated func reporter(for object: FileObject, _ direction: SyncFileTransfer.Direction)
        -> @Sendable (Int64, Int64?) -> Void
    {
        let last = Locked<Int64>(0)
        return { [weak self] done, total in
            let step = max(1 << 20, (total ?? 0) / 100)
            let due = last.withLock { reported in
                guard done - reported >= step || done == total else { return false }
                reported = done
                return true
            }
            guard due, let self else { return }
            Task { await self.update(SyncFileTransfer(object: object, direction: direction, bytesDone: done, bytesTotal: total)) }
        }
    }

    private func update(_ transfer: SyncFileTransfer) {
        // A report that arrives after its transfer ended is dropped.
        guard waiting[transfer.object] != nil else { return }
        progress[transfer.object] = transfer
        publish()
    }

    private func publish() {
        let now = progress.values.sorted { $0.id < $1.id }
        for observer in observers.values { observer.yield(now) }
    }

    private func addObserver(_ id: UUID, _ continuation: AsyncStream<[SyncFileTransfer]>.Continuation) {
        observers[id] = continuation
        continuation.yield(progress.values.sorted { $0.id < $1.id })
    }

    private func removeObserver(_ id: UUID) {
        observers[id] = nil
    }
}
