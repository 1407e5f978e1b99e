import Foundation

/// A value shared between threads, read and written under a lock: the one lock box of the
/// package (GRDB's `Mutex`, swift-nio's `NIOLockedValueBox`). `Synchronization.Mutex` would do,
/// but it needs macOS 15 / iOS 18, and the runtime supports macOS 14 / iOS 17.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) {
        stored = value
    }

    /// Runs `body` with the value, under the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    /// The value, read or replaced under the lock.
    public var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}
