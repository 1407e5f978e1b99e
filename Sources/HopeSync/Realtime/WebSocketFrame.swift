/// One RFC 6455 frame. A client masks every frame it sends; a server masks none.
struct WebSocketFrame: Equatable {
    struct Opcode: Equatable {
        let value: UInt8

        static let continuation = Opcode(value: 0)
        static let text = Opcode(value: 1)
        static let binary = Opcode(value: 2)
        static let close = Opcode(value: 8)
        static let ping = Opcode(value: 9)
        static let pong = Opcode(value: 10)

        var isControl: Bool { value & 0x8 != 0 }
    }

    var fin = true
    var opcode: Opcode
    var payload: [UInt8]

    /// The frame's bytes, its payload masked with `mask` (four bytes), as a client sends it.
    func encoded(mask: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode.value]
        switch payload.count {
        case ..<126: bytes.append(0x80 | UInt8(payload.count))
        case ..<65_536: bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
            }
        }
        bytes += mask
        bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return bytes
    }

    /// The payload of a close frame: a status code, then UTF-8 text.
    static func closePayload(code: UInt16) -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)]
    }
}

/// Frames out of the bytes a server sends, however the reads cut them.
struct WebSocketFrameReader {
    struct Failure: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// The longest payload accepted: far above anything Realtime sends a client.
    static let maximumPayload = 16 << 20

    private var buffer: [UInt8] = []
    private var start = 0

    mutating func feed(_ bytes: some Sequence<UInt8>) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, or nil until more bytes arrive.
    mutating func next() throws -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        guard first & 0x70 == 0 else { throw Failure(description: "a frame with reserved bits set (no extension was agreed)") }
        let opcode = WebSocketFrame.Opcode(value: first & 0x0F)
        var length = Int(second & 0x7F)
        var offset = 2
        if length == 126 {
            guard available >= 4 else { return nil }
            length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            offset = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            var value: UInt64 = 0
            for index in 2..<10 { value = value << 8 | UInt64(buffer[start + index]) }
            guard value <= UInt64(Self.maximumPayload) else { throw Failure(description: "a frame of \(value) bytes") }
            length = Int(value)
            offset = 10
        }
        guard length <= Self.maximumPayload else { throw Failure(description: "a frame of \(length) bytes") }
        if opcode.isControl, length > 125 || first & 0x80 == 0 {
            throw Failure(description: "a control frame that is long or fragmented")
        }
        let masked = second & 0x80 != 0
        if masked, available < offset + 4 { return nil }
        let mask = masked ? Array(buffer[(start + offset)..<(start + offset + 4)]) : []
        if masked { offset += 4 }
        guard available >= offset + length else { return nil }
        var payload = Array(buffer[(start + offset)..<(start + offset + length)])
        if masked { for index in payload.indices { payload[index] ^= mask[index % 4] } }
        start += offset + length
        return WebSocketFrame(fin: first & 0x80 != 0, opcode: opcode, payload: payload)
    }
}
