import Foundation
import SyncRuntime

/// Sizes of the upserts a transport saw.
final class BatchSizes: @unchecked Sendable {
    private let lock = NSLock()
    private var sizes: [Int] = []

    func append(_ size: Int) { lock.withLock { sizes.append(size) } }
    var values: [Int] { lock.withLock { sizes } }
}

/// A late-bound reference for hooks that act on a device built after them.
final class StoreBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: SyncStore?
    private var used = false

    var store: SyncStore? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// True the first time only.
    func takeOnce() -> Bool {
        lock.withLock {
            defer { used = true }
            return !used
        }
    }
}
