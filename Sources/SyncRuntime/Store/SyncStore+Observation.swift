import Foundation
import SQLite

extension SyncStore {
    /// The results of `query`, now and after every committed change to a table it read. The first
    /// value comes at once; later ones are fetched off the writing thread, on a reader connection,
    /// and changes that land while a fetch runs are coalesced into one more fetch. Iteration
    /// ending (or the task being cancelled) stops the observation.
    public func observe<T: Sendable>(
        _ query: @escaping @Sendable (StoreReader) throws -> T
    ) -> AsyncThrowingStream<T, any Error> {
        observe(query, isDuplicate: { _, _ in false })
    }

    /// Like ``observe(_:)``, but a value equal to the last one emitted is not emitted again.
    public func observe<T: Sendable & Equatable>(
        _ query: @escaping @Sendable (StoreReader) throws -> T
    ) -> AsyncThrowingStream<T, any Error> {
        observe(query, isDuplicate: ==)
    }

    private func observe<T: Sendable>(
        _ query: @escaping @Sendable (StoreReader) throws -> T,
        isDuplicate: @escaping @Sendable (T, T) -> Bool
    ) -> AsyncThrowingStream<T, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: T.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let last = LastValue<T>()
        let fetch: @Sendable () -> DatabaseRegion? = { [weak self] in
            guard let self else { return nil }
            do {
                let (value, region) = try self.readAccess { database in
                    try database.recordingReads { try query(StoreReader(store: self, database: database)) }
                }
                if last.replace(with: value, isDuplicate: isDuplicate) { continuation.yield(value) }
                return region
            } catch {
                continuation.finish(throwing: error)
                return nil
            }
        }
        let observer = StoreObserver(queue: state.observationQueue, fetch: fetch, finish: { continuation.finish() })
        // Weakly: the store's list holds the observer, and the observer holds the continuation.
        continuation.onTermination = { [weak self, weak observer] _ in
            observer?.stop()
            self?.state.removeObserver(id)
        }
        // Listed before the first fetch, so a commit during it is not missed.
        state.addObserver(id, observer)
        observer.start()
        return stream
    }
}

/// The last value an observation emitted, shared by the callbacks of writers on any thread.
private final class LastValue<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?

    /// Stores `new` and says whether to emit it.
    func replace(with new: T, isDuplicate: (T, T) -> Bool) -> Bool {
        lock.withLock {
            if let value, isDuplicate(value, new) { return false }
            value = new
            return true
        }
    }
}
