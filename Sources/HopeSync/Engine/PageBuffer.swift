import Foundation
import HopeSyncLocking

/// Pages fetched ahead of the apply (a table's pages, or the answers of a pull of every
/// table), at most `capacity` waiting. The apply takes the pages one by one as they arrive, and
/// keeps its transaction open while more are ready (see ``PullTransaction``); memory stays
/// bounded by `capacity` pages whatever the table's size.
final class PageBuffer<Page: Sendable>: Sendable {
    private struct State {
        var pages: [Page] = []
        /// Set once the fetching ends: nil error for the table's last page.
        var end: SyncError??
        var consumer: CheckedContinuation<Void, Never>?
        var producer: CheckedContinuation<Void, Never>?
    }

    private let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Adds a page, waiting while `capacity` pages wait already (or until the buffer is closed).
    func put(_ page: Page) async {
        while true {
            let added = state.withLock { state in
                guard state.pages.count < capacity || state.end != nil else { return false }
                state.pages.append(page)
                Self.wake(&state.consumer)
                return true
            }
            if added { return }
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    if state.pages.count < capacity || state.end != nil { continuation.resume() } else { state.producer = continuation }
                }
            }
        }
    }

    /// Ends the buffer: with nil after the last page, or with the error that stopped the fetching.
    func finish(_ error: SyncError?) {
        state.withLock { state in
            if state.end == nil { state.end = .some(error) }
            Self.wake(&state.consumer)
            Self.wake(&state.producer)
        }
    }

    /// Waits until a page is queued: true once one is, false after the last page was taken.
    /// Throws the error that stopped the fetching, after the pages before it were taken.
    func waitForPage() async throws(SyncError) -> Bool {
        while true {
            let ready: Result<Bool, SyncError>? = state.withLock { state in
                if !state.pages.isEmpty { return .success(true) }
                guard let end = state.end else { return nil }
                return end.map { .failure($0) } ?? .success(false)
            }
            if let ready { return try ready.get() }
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    if !state.pages.isEmpty || state.end != nil { continuation.resume() } else { state.consumer = continuation }
                }
            }
        }
    }

    /// The oldest page queued, without waiting: nil when none is.
    func takeReady() -> Page? {
        state.withLock { state in
            guard !state.pages.isEmpty else { return nil }
            Self.wake(&state.producer)
            return state.pages.removeFirst()
        }
    }

    private static func wake(_ waiting: inout CheckedContinuation<Void, Never>?) {
        waiting?.resume()
        waiting = nil
    }
}

extension PageBuffer {
    /// Runs `fetch` on a task of its own, putting pages into a buffer of `capacity`, while
    /// `apply` runs in this task whenever a page is ready, taking pages with the function it is
    /// given (nil: none ready now; the first call never returns nil). A failed fetch throws once
    /// the pages before it are applied; a failed apply, or this task's cancellation, stops the
    /// fetch.
    static func fetchingAhead(
        capacity: Int,
        fetch: @escaping @Sendable (PageBuffer) async throws(SyncError) -> Void,
        apply: (_ nextReady: @Sendable () -> Page?) async throws(SyncError) -> Void
    ) async throws(SyncError) {
        let buffer = PageBuffer(capacity: capacity)
        let fetching = Task {
            do throws(SyncError) {
                try await fetch(buffer)
                buffer.finish(nil)
            } catch {
                buffer.finish(error)
            }
        }
        defer {
            // An apply that failed leaves the fetching nothing to do.
            fetching.cancel()
            buffer.finish(SyncError(.cancelled, "The pull was cancelled."))
        }
        do {
            try await withTaskCancellationHandler {
                while try await buffer.waitForPage() { try await apply { buffer.takeReady() } }
            } onCancel: {
                fetching.cancel()
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.cancelled, "The pull was cancelled.")
        }
    }
}
