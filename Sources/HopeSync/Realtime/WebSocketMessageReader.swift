import Foundation

/// What a server's bytes come to once frames are read and fragments joined: messages, and the
/// control frames a client answers (a ping with a pong, a close with a close).
struct WebSocketMessageReader {
    enum Event: Equatable {
        case message(WebSocketMessage)
        case ping([UInt8])
        case pong
        case close
    }

    private var frames = WebSocketFrameReader()
    /// A fragmented message so far: its first frame's opcode and the payloads joined.
    private var partial: (opcode: WebSocketFrame.Opcode, bytes: [UInt8])?

    mutating func feed(_ bytes: some Sequence<UInt8>) {
        frames.feed(bytes)
    }

    /// The next event, or nil until more bytes arrive.
    mutating func next() throws -> Event? {
        while let frame = try frames.next() {
            switch frame.opcode {
            case .ping: return .ping(frame.payload)
            case .pong: return .pong
            case .close: return .close
            case .continuation:
                guard var message = partial else { throw WebSocketFrameReader.Failure(description: "a continuation frame with no message") }
                message.bytes += frame.payload
                guard message.bytes.count <= WebSocketFrameReader.maximumPayload else {
                    throw WebSocketFrameReader.Failure(description: "a message of more than \(WebSocketFrameReader.maximumPayload) bytes")
                }
                partial = message
                if frame.fin {
                    partial = nil
                    return .message(try Self.message(message.opcode, message.bytes))
                }
            case .text, .binary:
                guard partial == nil else { throw WebSocketFrameReader.Failure(description: "a new message inside a fragmented one") }
                if frame.fin { return .message(try Self.message(frame.opcode, frame.payload)) }
                partial = (frame.opcode, frame.payload)
            default:
                throw WebSocketFrameReader.Failure(description: "a frame with the unknown opcode \(frame.opcode.value)")
            }
        }
        return nil
    }

    private static func message(_ opcode: WebSocketFrame.Opcode, _ bytes: [UInt8]) throws -> WebSocketMessage {
        guard opcode == .text else { return .binary(Data(bytes)) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw WebSocketFrameReader.Failure(description: "a text message that is not UTF-8")
        }
        return .text(text)
    }
}
