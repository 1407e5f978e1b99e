import Foundation
import HopeSync

/// A signed-in user whose credentials call number `holdingCall` waits until the test releases
/// it: a way to stop one caller between two of its steps.
actor HeldSignIn {
    private let user: Credentials
    private let holdingCall: Int
    private var calls = 0
    private var held: CheckedContinuation<Void, Never>?
    private var isReleased = false
    private var heldWaiters: [CheckedContinuation<Void, Never>] = []

    init(_ userID: UUID, holdingCall: Int) {
        user = Credentials(userID: userID, accessToken: "token")
        self.holdingCall = holdingCall
    }

    nonisolated var provider: @Sendable () async -> Credentials? { { await self.credentials() } }

    func credentials() async -> Credentials? {
        calls += 1
        if calls == holdingCall && !isReleased {
            for waiter in heldWaiters { waiter.resume() }
            heldWaiters = []
            await withCheckedContinuation { held = $0 }
        }
        return user
    }

    /// Returns once the held call is waiting.
    func waitUntilHeld() async {
        if held != nil || calls >= holdingCall { return }
        await withCheckedContinuation { heldWaiters.append($0) }
    }

    func release() {
        isReleased = true
        held?.resume()
        held = nil
    }
}
