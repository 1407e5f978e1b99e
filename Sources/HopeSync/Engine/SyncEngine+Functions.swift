import Foundation

/// Whether a pass goes through the server's sync functions or through the tables. A server
/// whose SQL is older than the app's lacks them (PGRST202, 42883): the pass goes through the
/// tables at once, nothing is lost, and the status says so; they are tried again later, since
/// the newer SQL may be pasted while the app runs.
extension SyncEngine {
    /// How long the engine goes through the tables after the server lacked its functions.
    static let functionsRetryInterval: TimeInterval = 600

    /// Whether this pass tries the functions the app's table list names.
    func triesFunctions() -> Bool {
        guard store.schema.pullFunction != nil else { return false }
        guard let lacked = functionsLackedAt else { return true }
        return configuration.now().timeIntervalSince(lacked) >= Self.functionsRetryInterval
    }

    /// What the pass found: the server lacked a function it called, or it tried them and none
    /// was lacking.
    func noteFunctions(tried: Bool, lacking: Bool) {
        if lacking {
            functionsLackedAt = configuration.now()
        } else if tried {
            functionsLackedAt = nil
        }
        status.serverProtocol = tried && !lacking ? .functions : .tables
    }
}
