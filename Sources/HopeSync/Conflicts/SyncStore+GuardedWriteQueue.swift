import Foundation

/// The queue every store opens with (see ``GuardedWriteQueueSupplier``): this layer's.
extension SyncStore: GuardedWriteQueueSupplier {
    static func makeGuardedWriteQueue() -> any GuardedWriteQueue {
        MutationQueue()
    }
}
