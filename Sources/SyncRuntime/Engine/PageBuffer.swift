import Foundation

/// Pages fetched ahead of the apply, at most `capacity` waiting. The apply takes every page that
/// has arrived: while the local disk keeps up, each page is its own transaction; when it falls
/// behind, the pages that queued meanwhile go in one, so a first sync writes each index page
/// fewer times. Memory stays bounded by `capacity` pages whatever the table's size.
final class PageBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private let capacity: Int
    private var pages: [PulledPage] = []
    /// Set once the fetching ends: nil error for the table's last page.
    private var end: SyncError??
    private var consumer: CheckedContinuation<Void, Never>?
    private var producer: CheckedContinuation<Void, Never>?

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Adds a page, waiting while `capacity` pages wait already (or until the buffer is closed).
    func put(_ page: PulledPage) async {
        while true {
            let added = lock.withLock {
                guard pages.count < capacity || end != nil else { return false }
                pages.append(page)
                wake(&consumer)
                return true
            }
            if added { return }
            await withCheckedContinuation { continuation in
                lock.withLock {
                    if pages.count < capacity || end != nil { continuation.resume() } else { producer = continuation }
                }
            }
        }
    }

    /// Ends the buffer: with nil after the last page, or with the error that stopped the fetching.
    func finish(_ error: SyncError?) {
        lock.withLock {
            if end == nil { end = .some(error) }
            wake(&consumer)
            wake(&producer)
        }
    }

    /// Every page that has arrived, waiting for at least one; an empty list once the last page
    /// was taken. Throws the error that stopped the fetching, after the pages before it.
    func takeAll() async throws(SyncError) -> [PulledPage] {
        while true {
            let taken: Result<[PulledPage], SyncError>? = lock.withLock {
                if !pages.isEmpty {
                    defer {
                        pages.removeAll(keepingCapacity: true)
                        wake(&producer)
                    }
                    return .success(pages)
                }
                guard let end else { return nil }
                return end.map { .failure($0) } ?? .success([])
            }
            if let taken { return try taken.get() }
            await withCheckedContinuation { continuation in
                lock.withLock {
                    if !pages.isEmpty || end != nil { continuation.resume() } else { consumer = continuation }
                }
            }
        }
    }

    private func wake(_ waiting: inout CheckedContinuation<Void, Never>?) {
        waiting?.resume()
        waiting = nil
    }
}
