import HopeSyncModel

/// One message of the Phoenix channel protocol, whatever frame carried it.
struct PhoenixMessage: Equatable, Sendable {
    /// The join's reference, for messages of a joined channel.
    var joinRef: String?
    /// A request's reference, which its reply carries back.
    var ref: String?
    var topic: String
    var event: String
    var payload: JSONValue

    /// A reply's status (`ok`, `error`), when this is one.
    var replyStatus: String? {
        guard event == "phx_reply", case .string(let status)? = payload["status"] else { return nil }
        return status
    }
}
