import Foundation
import Testing

@testable import HopeSync

/// The RFC 6455 client's pieces against the RFC's own examples (sections 1.3 and 5.7), and
/// SHA-1 against FIPS 180's.
struct WebSocketFrameTests {
    @Test func sha1MatchesTheStandardsVectors() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(
            hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func theHandshakeChecksTheServersAccept() throws {
        let handshake = WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(handshake.expectedAccept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let request = String(decoding: try handshake.request(for: URL(string: "ws://example.com:4000/chat?vsn=2.0.0")!), as: UTF8.self)
        #expect(request.hasPrefix("GET /chat?vsn=2.0.0 HTTP/1.1\r\nHost: example.com:4000\r\n"))
        #expect(request.contains("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n") && request.hasSuffix("\r\n\r\n"))
        let answer =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        try handshake.check(responseHead: answer)
        #expect(throws: WebSocketHandshake.Failure.self) {
            try handshake.check(responseHead: answer.replacingOccurrences(of: "s3pP", with: "AAAA"))
        }
        #expect(throws: WebSocketHandshake.Failure.self) { try handshake.check(responseHead: "HTTP/1.1 403 Forbidden") }
    }

    @Test func aMaskedFrameIsTheRFCsExample() {
        let frame = WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))
        #expect(frame.encoded(mask: [0x37, 0xfa, 0x21, 0x3d]) == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
        let long = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 256)).encoded(mask: [0, 0, 0, 0])
        #expect(Array(long.prefix(4)) == [0x82, 0xFE, 0x01, 0x00])
        let longer = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 65_536)).encoded(mask: [0, 0, 0, 0])
        #expect(Array(longer.prefix(10)) == [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test func serverFramesAreReadHoweverTheBytesArrive() throws {
        let hello: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        let fragmented: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f]
        let ping: [UInt8] = [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        let binary: [UInt8] = [0x82, 0x7E, 0x01, 0x00] + [UInt8](repeating: 1, count: 256)
        let close: [UInt8] = [0x88, 0x02, 0x03, 0xE8]
        var reader = WebSocketMessageReader()
        var events: [WebSocketMessageReader.Event] = []
        // One byte at a time: every cut a read can make.
        for byte in hello + fragmented + ping + binary + close {
            reader.feed([byte])
            while let event = try reader.next() { events.append(event) }
        }
        #expect(
            events == [
                .message(.text("Hello")), .message(.text("Hello")), .ping(Array("Hello".utf8)),
                .message(.binary(Data(repeating: 1, count: 256))), .close,
            ])
    }

    @Test func aBrokenFrameIsRefused() {
        var reserved = WebSocketMessageReader()
        reserved.feed([0xC1, 0x00])
        #expect(throws: WebSocketFrameReader.Failure.self) { try reserved.next() }
        var longPing = WebSocketMessageReader()
        longPing.feed([0x89, 0x7E, 0x00, 0x80] + [UInt8](repeating: 0, count: 128))
        #expect(throws: WebSocketFrameReader.Failure.self) { try longPing.next() }
        var stray = WebSocketMessageReader()
        stray.feed([0x80, 0x00])
        #expect(throws: WebSocketFrameReader.Failure.self) { try stray.next() }
    }
}
