import Foundation
import HopeSyncLocking

/// Asks the app's resolver about a conflict in a task of its own, off the caller's actor and
/// outside every database transaction. A throw (but a cancellation) or no answer in time reads
/// as hold, logged with the table and the failure's type only; a late answer is dropped.
struct ResolverRunner: Sendable {
    let resolver: ConflictResolver?
    let timeout: Duration
    let warn: @Sendable (String) -> Void

    func resolve(_ conflict: MutationConflict) async throws(SyncError) -> ConflictResolution {
        guard let resolver else { return .default(for: conflict) }
        let answer = ResolverAnswer()
        let work = Task.detached {
            do {
                answer.finish(.answered(try await resolver(conflict)))
            } catch is CancellationError {
                answer.finish(.cancelled)
            } catch {
                answer.finish(.failed(String(describing: type(of: error))))
            }
        }
        let timer = Task.detached { [timeout] in
            try? await Task.sleep(for: timeout)
            answer.finish(.timedOut)
        }
        let result = await withTaskCancellationHandler {
            await answer.value()
        } onCancel: {
            answer.finish(.cancelled)
        }
        timer.cancel()
        switch result {
        case .answered(let resolution):
            return resolution
        case .failed(let type):
            warn("The conflict resolver failed for a write to \(conflict.table) (\(type)); the write is held.")
            return .hold
        case .timedOut:
            warn("The conflict resolver gave no answer in time for a write to \(conflict.table); the write is held.")
            return .hold
        case .cancelled:
            work.cancel()
            throw SyncError(.cancelled, "The sync was cancelled while the conflict resolver ran")
        }
    }
}

/// The first of the resolver's answer, the timer, or a cancellation; later ones are dropped.
private final class ResolverAnswer: Sendable {
    enum Outcome: Sendable {
        case answered(ConflictResolution)
        case failed(String)
        case timedOut
        case cancelled
    }

    private struct State {
        var outcome: Outcome?
        var waiter: CheckedContinuation<Outcome, Never>?
    }

    private let state = Locked(State())

    func finish(_ value: Outcome) {
        let waiting: CheckedContinuation<Outcome, Never>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiting?.resume(returning: value)
    }

    func value() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready: Outcome? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
