import Foundation
import Observation

/// The engine's status for SwiftUI: an `@Observable` main-actor view that follows
/// ``SyncEngine/statusUpdates()`` (or a client's, across sign-ins) while it lives (its task ends
/// at the first update after it is gone).
@MainActor
@Observable
public final class SyncStatusModel {
    public private(set) var status = SyncStatus()

    public convenience init(engine: SyncEngine) {
        self.init(updates: engine.statusUpdates())
    }

    init(updates stream: AsyncStream<SyncStatus>) {
        Task { [weak self] in
            for await status in stream {
                guard let self else { return }
                self.status = status
            }
        }
    }
}
