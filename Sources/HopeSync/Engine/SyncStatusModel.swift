import Foundation
import Observation

/// The engine's status for SwiftUI: an `@Observable` main-actor view that follows
/// ``SyncEngine/statusUpdates()`` while it lives (its task ends at the first update after it is
/// gone).
@MainActor
@Observable
public final class SyncStatusModel {
    public private(set) var status = SyncStatus()

    public init(engine: SyncEngine) {
        let stream = engine.statusUpdates()
        Task { [weak self] in
            for await status in stream {
                guard let self else { return }
                self.status = status
            }
        }
    }
}
