/// What a ``PokeSource`` tells the engine: it is listening, it stopped listening, or the server
/// wrote something of this user's. A struct with static members, so it can grow.
@_spi(Transport) public struct PokeEvent: Sendable, Hashable, CustomStringConvertible {
    public struct Kind: Sendable, Hashable {
        private let name: String

        /// Listening: a poke will come after every write (pokes can still be lost).
        public static let connected = Kind(name: "connected")
        /// No longer listening: writes may pass unannounced until it connects again.
        public static let disconnected = Kind(name: "disconnected")
        /// The server wrote rows of this user's.
        public static let poke = Kind(name: "poke")
    }

    public let kind: Kind
    /// The table written, when the poke names it.
    public let table: String?
    /// A server_seq the write reached, when the poke says: a device whose cursor for the table
    /// is there already has the write.
    public let serverSeq: Int64?

    public static let connected = PokeEvent(kind: .connected, table: nil, serverSeq: nil)
    public static let disconnected = PokeEvent(kind: .disconnected, table: nil, serverSeq: nil)

    public static func poke(table: String?, serverSeq: Int64?) -> PokeEvent {
        PokeEvent(kind: .poke, table: table, serverSeq: serverSeq)
    }

    public var description: String {
        switch kind {
        case .connected: "connected"
        case .disconnected: "disconnected"
        default: "poke(\(table ?? "any table"), \(serverSeq.map(String.init) ?? "no server_seq"))"
        }
    }
}
