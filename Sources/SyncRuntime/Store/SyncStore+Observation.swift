import Foundation

extension SyncStore {
    /// The results of `query`, now and after every committed change to the database. The first
    /// value comes at once; iteration ending (or the task being cancelled) stops the observation.
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
        let emit: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            do {
                let value = try self.performRead(query)
                if last.replace(with: value, isDuplicate: isDuplicate) { continuation.yield(value) }
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { [weak self] _ in self?.state.removeObserver(id) }
        state.addObserver(id, .init(changed: emit, finish: { continuation.finish() }))
        emit()
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
