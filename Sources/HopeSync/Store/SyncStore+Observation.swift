import Foundation
import HopeSyncLocking
import HopeSyncSQLite

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
        // The last value emitted, shared by the fetches of writers on any thread.
        let last = Locked<T?>(nil)
        let fetch: @Sendable () -> DatabaseRegion? = { [weak self] in
            guard let self else { return nil }
            do {
                let (value, region) = try self.observedRead(query)
                let isNew = last.withLock { last in
                    if let last, isDuplicate(last, value) { return false }
                    last = value
                    return true
                }
                if isNew { continuation.yield(value) }
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

    /// One fetch of an observation, with the tables it read; the local database's failures as
    /// SyncErrors.
    private func observedRead<T>(_ query: (StoreReader) throws -> T) throws -> (T, DatabaseRegion) {
        try SyncError.reportingSQLite(closed: pool.isClosed) {
            try pool.read { database in
                try database.recordingReads { try query(StoreReader(store: self, database: database)) }
            }
        }
    }
}
