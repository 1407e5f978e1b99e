import Foundation
import HopeSyncModel

/// Phoenix messages to and from WebSocket frames, as Supabase Realtime's serializers write them:
/// 1.0.0 a JSON object per text frame; 2.0.0 a JSON array `[join_ref, ref, topic, event,
/// payload]` per text frame, and binary frames whose first byte is their kind. Of those, a
/// client reads the user broadcast (4): it becomes the `broadcast` message a text frame carries.
struct PhoenixCodec: Sendable {
    let version: RealtimeProtocolVersion

    struct Failure: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    func encode(_ message: PhoenixMessage) -> WebSocketMessage {
        let text: String
        if version == .v2 {
            text = JSONValue.array([
                message.joinRef.map(JSONValue.string) ?? .null, message.ref.map(JSONValue.string) ?? .null, .string(message.topic),
                .string(message.event), message.payload,
            ]).serialized()
        } else {
            text = JSONValue.object([
                ("topic", .string(message.topic)), ("event", .string(message.event)), ("payload", message.payload),
                ("ref", message.ref.map(JSONValue.string) ?? .null), ("join_ref", message.joinRef.map(JSONValue.string) ?? .null),
            ]).serialized()
        }
        return .text(text)
    }

    func decode(_ frame: WebSocketMessage) throws -> PhoenixMessage {
        switch frame {
        case .text(let text): return try decode(text: text)
        case .binary(let bytes): return try decode(binary: [UInt8](bytes))
        }
    }

    private func decode(text: String) throws -> PhoenixMessage {
        let json: JSONValue
        do { json = try JSONValue(parsing: text) } catch { throw Failure(description: "a frame that is not JSON: \(error.reason)") }
        switch json {
        case .array(let fields) where fields.count >= 5:
            guard case .string(let topic) = fields[2], case .string(let event) = fields[3] else {
                throw Failure(description: "an array frame without its topic and event")
            }
            return PhoenixMessage(joinRef: fields[0].text, ref: fields[1].text, topic: topic, event: event, payload: fields[4])
        case .object:
            guard case .string(let topic)? = json["topic"], case .string(let event)? = json["event"] else {
                throw Failure(description: "an object frame without its topic and event")
            }
            return PhoenixMessage(
                joinRef: json["join_ref"]?.text, ref: json["ref"]?.text, topic: topic, event: event, payload: json["payload"] ?? .null)
        default:
            throw Failure(description: "a frame that is neither a Phoenix array nor object")
        }
    }

    /// A user broadcast: kind 4, the sizes of topic, event and metadata, the payload's encoding
    /// (1: JSON), then those fields and the payload.
    private func decode(binary bytes: [UInt8]) throws -> PhoenixMessage {
        guard let kind = bytes.first else { throw Failure(description: "an empty binary frame") }
        guard kind == 4 else { throw Failure(description: "a binary frame of kind \(kind), which a client is not sent") }
        guard bytes.count >= 5 else { throw Failure(description: "a user broadcast cut short") }
        let (topicSize, eventSize, metadataSize, encoding) = (Int(bytes[1]), Int(bytes[2]), Int(bytes[3]), bytes[4])
        let payloadStart = 5 + topicSize + eventSize + metadataSize
        guard bytes.count >= payloadStart else { throw Failure(description: "a user broadcast cut short") }
        let topic = String(decoding: bytes[5..<(5 + topicSize)], as: UTF8.self)
        let event = String(decoding: bytes[(5 + topicSize)..<(5 + topicSize + eventSize)], as: UTF8.self)
        let metadata = bytes[(5 + topicSize + eventSize)..<payloadStart]
        var body: [(key: String, value: JSONValue)] = [("type", .string("broadcast")), ("event", .string(event))]
        // A binary payload is the application's bytes: still a broadcast, with nothing to read.
        let payload = bytes[payloadStart...]
        body.append(("payload", encoding == 1 ? ((try? JSONValue(parsing: Data(payload))) ?? .null) : .null))
        if !metadata.isEmpty, let meta = try? JSONValue(parsing: Data(metadata)) { body.append(("meta", meta)) }
        return PhoenixMessage(joinRef: nil, ref: nil, topic: topic, event: "broadcast", payload: .object(body))
    }
}

extension JSONValue {
    /// A string's text; nil for anything else (a null reference).
    var text: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
