import Foundation
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// The codec against the frames of Supabase's protocol documentation
/// (supabase.com/docs/guides/realtime/protocol): 1.0.0 objects, 2.0.0 arrays, and the binary
/// user broadcast; and the join and pokes as this client sends and reads them.
struct PhoenixCodecTests {
    let v1 = PhoenixCodec(version: .v1)
    let v2 = PhoenixCodec(version: .v2)

    @Test func aVersion1JoinIsAnObject() throws {
        let documented = """
            {"topic": "realtime:presence-room", "event": "phx_join",
             "payload": {"config": {"broadcast": {"ack": false, "self": false}, "presence": {"enabled": false}, "private": false}},
             "ref": "1", "join_ref": "1"}
            """
        let message = try v1.decode(.text(documented))
        #expect(message.topic == "realtime:presence-room" && message.event == "phx_join")
        #expect(message.ref == "1" && message.joinRef == "1")
        #expect(message.payload["config"]?["private"] == .bool(false))
        #expect(try v1.decode(v1.encode(message)) == message)
        guard case .text(let text) = v1.encode(message), case .object = try JSONValue(parsing: text) else {
            Issue.record("version 1 sends objects")
            return
        }
    }

    @Test func version2FramesAreArrays() throws {
        let heartbeat = #"[null, "26", "phoenix", "heartbeat", {}]"#
        let decoded = try v2.decode(.text(heartbeat))
        #expect(decoded == PhoenixMessage(joinRef: nil, ref: "26", topic: "phoenix", event: "heartbeat", payload: .object([])))
        #expect(v2.encode(decoded) == .text(#"[null,"26","phoenix","heartbeat",{}]"#))

        let close = try v2.decode(.text(#"["3", "3", "realtime:avatar-stack-demo", "phx_close", {}]"#))
        #expect(close.event == "phx_close" && close.joinRef == "3" && close.topic == "realtime:avatar-stack-demo")

        let system = try v2.decode(
            .text(
                #"["13", null, "realtime:chat-room", "system", {"message": "Subscribed to PostgreSQL", "status": "ok", "extension": "postgres_changes", "channel": "main"}]"#
            ))
        #expect(system.ref == nil && system.payload["status"] == .string("ok"))

        let reply = try v2.decode(
            .text(
                #"["1", "1", "realtime:chat-room", "phx_reply", {"status": "ok", "response": {"postgres_changes": [{"id": 106243155, "event": "*", "schema": "public", "table": "test"}]}}]"#
            ))
        #expect(reply.replyStatus == "ok")
    }

    @Test func aBroadcastAsATextArray() throws {
        let documented = """
            [null, null, "realtime:chat-room", "broadcast",
             {"event": "message", "type": "broadcast", "meta": {"id": "006554ce-d22d-469c-877a-88bef47214a3"},
              "payload": {"id": "513edcc1-4cbc-4274-aa26-c195f7e8c090", "content": "oi"}}]
            """
        let message = try v2.decode(.text(documented))
        #expect(message.event == "broadcast" && message.payload["event"] == .string("message"))
        #expect(message.payload["payload"]?["content"] == .string("oi"))
    }

    /// The documentation's user broadcast: kind 4, sizes 0x12, 0x07, 0x2D, JSON (1), then the
    /// topic, the event, the metadata and the payload.
    @Test func theBinaryUserBroadcastReadsAsTheTextOne() throws {
        let metadata = #"{"id":"006554ce-d22d-469c-877a-88bef47214a3"}"#
        let payload = #"{"id": "513edcc1-4cbc-4274-aa26-c195f7e8c090", "content": "oi"}"#
        let frame =
            [0x04, 0x12, 0x07, 0x2D, 0x01] + Array("realtime:chat-room".utf8) + Array("message".utf8) + Array(metadata.utf8)
            + Array(payload.utf8)
        let message = try v2.decode(.binary(Data(frame)))
        #expect(message.topic == "realtime:chat-room" && message.event == "broadcast")
        #expect(message.payload["event"] == .string("message"))
        #expect(message.payload["meta"]?["id"] == .string("006554ce-d22d-469c-877a-88bef47214a3"))
        #expect(message.payload["payload"]?["content"] == .string("oi"))
        #expect(throws: PhoenixCodec.Failure.self) { try v2.decode(.binary(Data(frame.prefix(20)))) }
        #expect(throws: PhoenixCodec.Failure.self) { try v2.decode(.binary(Data([0x03] + frame.dropFirst()))) }
    }

    @Test func theJoinIsPrivateAndCarriesTheToken() {
        let join = RealtimeSession.join("the-jwt")
        #expect(join["config"]?["private"] == .bool(true))
        #expect(join["config"]?["broadcast"]?["self"] == .bool(false))
        #expect(join["config"]?["presence"]?["enabled"] == .bool(false))
        #expect(join["config"]?["postgres_changes"] == .array([]))
        #expect(join["access_token"] == .string("the-jwt"))
    }

    @Test func aPokeNamesItsTableAndServerSeq() throws {
        let text = try v2.decode(
            .text(
                #"[null, null, "realtime:sync:u", "broadcast", {"event": "poke", "type": "broadcast", "payload": {"table": "sessions", "server_seq": 9007199254740993, "id": "x"}}]"#
            ))
        #expect(RealtimeSession.poke(in: text.payload) == .poke(table: "sessions", serverSeq: 9_007_199_254_740_993))
        let bare = JSONValue.object([("event", .string("poke")), ("payload", .object([]))])
        #expect(RealtimeSession.poke(in: bare) == .poke(table: nil, serverSeq: nil))
        #expect(RealtimeSession.poke(in: .object([("event", .string("message"))])) == nil)
    }
}
