import Foundation
@_spi(Transport) import HopeSync
import HopeSyncTesting

/// Storage whose downloads wait until the test opens the gate, counting them.
actor GatedStorage: SyncFileTransport {
    let base: InMemoryStorage
    private(set) var downloads = 0
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(base: InMemoryStorage) {
        self.base = base
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    func upload(_ source: URL, as object: FileObject, for user: Credentials, progress: @escaping @Sendable (Int64) -> Void)
        async throws(SyncError)
    {
        try await base.upload(source, as: object, for: user, progress: progress)
    }

    func download(
        _ object: FileObject, to destination: URL, for user: Credentials, progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws(SyncError) {
        downloads += 1
        if !isOpen { await withCheckedContinuation { waiters.append($0) } }
        try await base.download(object, to: destination, for: user, progress: progress)
    }
}
