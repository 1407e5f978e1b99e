import Dispatch
import HopeSyncLocking

/// Work that is independent item by item, spread over every core: `generate --check` runs in
/// every build, so its rendering and checksums run side by side.
enum Parallel {
    /// `transform` over `items`, results in the items' order; the first error wins.
    static func map<Item: Sendable, Value: Sendable>(_ items: [Item], _ transform: @Sendable (Item) throws -> Value) throws -> [Value] {
        let slots = Locked<[Result<Value, any Error>?]>(Array(repeating: nil, count: items.count))
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            let result = Result { try transform(items[index]) }
            slots.withLock { $0[index] = result }
        }
        return try slots.value.map { try $0!.get() }
    }
}
