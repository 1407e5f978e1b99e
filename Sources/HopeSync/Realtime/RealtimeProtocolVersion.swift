/// The serializer a Realtime socket speaks, chosen by the URL's `vsn`: 1.0.0 sends JSON objects,
/// 2.0.0 JSON arrays and binary frames for broadcasts.
@_spi(Transport) public struct RealtimeProtocolVersion: Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public static let v1 = RealtimeProtocolVersion(description: "1.0.0")
    public static let v2 = RealtimeProtocolVersion(description: "2.0.0")
}
