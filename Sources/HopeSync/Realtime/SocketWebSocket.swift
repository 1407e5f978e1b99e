import Foundation
import HopeSyncLocking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `ws://` WebSocket over a POSIX TCP socket: for Linux, whose Foundation has no WebSocket
/// (libcurl without it). Connecting and reading run on a thread of the socket's own, never on
/// the shared pool (the reads block); sends are small frames written under a lock. No TLS:
/// `wss://` needs Foundation's client (Apple platforms) or a proxy.
package final class SocketWebSocket: WebSocketConnection {
    private let descriptor: Int32
    /// Sends, and whether the descriptor was closed (by the reader, once it stops).
    private let writer = Locked(false)
    private let inbox = WebSocketInbox()
    private let closing = Locked(false)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects, upgrades, and starts reading. `timeout` bounds the connection and each send.
    package static func connect(to url: URL, timeout: Duration = .seconds(10)) async throws -> SocketWebSocket {
        guard url.scheme == "ws" else {
            throw WebSocketError("\(url.scheme ?? "no scheme"):// is not supported here: this client speaks ws:// only (no TLS)")
        }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let descriptor = try Self.open(url, timeout: timeout)
                    let socket = SocketWebSocket(descriptor: descriptor)
                    var reader = WebSocketMessageReader()
                    do {
                        try socket.upgrade(url, leftover: &reader)
                    } catch {
                        _ = Self.closeDescriptor(descriptor)
                        throw error
                    }
                    continuation.resume(returning: socket)
                    socket.read(with: reader)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    package func send(_ message: WebSocketMessage) async throws {
        switch message {
        case .text(let text): try write(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
        case .binary(let data): try write(WebSocketFrame(opcode: .binary, payload: [UInt8](data)))
        }
    }

    package func receive() async throws -> WebSocketMessage {
        try await inbox.receive()
    }

    package func close() {
        guard
            closing.withLock({ closing in
                defer { closing = true }
                return !closing
            })
        else { return }
        try? write(WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: 1000)))
        // Wakes the reader, which closes the descriptor as it stops.
        writer.withLock { closed in if !closed { _ = shutdown(descriptor, Int32(SHUT_RDWR)) } }
    }

    // MARK: The thread's work

    private func write(_ frame: WebSocketFrame) throws {
        let bytes = frame.encoded(mask: (0..<4).map { _ in UInt8.random(in: .min ... .max) })
        try writer.withLock { closed in
            guard !closed else { throw WebSocketError.connectionClosed }
            try Self.writeAll(bytes, to: descriptor)
        }
    }

    private func upgrade(_ url: URL, leftover reader: inout WebSocketMessageReader) throws {
        let handshake = WebSocketHandshake()
        try Self.writeAll(try handshake.request(for: url), to: descriptor)
        var received: [UInt8] = []
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { throw WebSocketError("the server closed the connection during the upgrade") }
            received += buffer[0..<count]
            if let range = received.firstRange(of: end) {
                try handshake.check(responseHead: String(decoding: received[..<range.lowerBound], as: UTF8.self))
                reader.feed(received[range.upperBound...])
                return
            }
            guard received.count < 16_384 else { throw WebSocketError("the server's upgrade answer has no end") }
        }
    }

    /// Reads until the connection ends: messages to the inbox, a pong for each ping, a close
    /// answered; then the descriptor is closed and a waiting receive fails.
    private func read(with start: WebSocketMessageReader) {
        var reader = start
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var ending: any Error = WebSocketError.connectionClosed
        reading: while true {
            do {
                while let event = try reader.next() {
                    switch event {
                    case .message(let message): inbox.deliver(message)
                    case .ping(let payload): try write(WebSocketFrame(opcode: .pong, payload: payload))
                    case .pong: break
                    case .close:
                        close()
                        break reading
                    }
                }
            } catch {
                ending = error
                break
            }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                reader.feed(buffer[0..<count])
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0 { ending = WebSocketError("the connection failed: \(String(cString: strerror(errno)))") }
            break
        }
        writer.withLock { closed in
            closed = true
            _ = Self.closeDescriptor(descriptor)
        }
        inbox.end(ending)
    }

    // MARK: POSIX

    private static func open(_ url: URL, timeout: Duration) throws -> Int32 {
        guard let host = url.host else { throw WebSocketError("\(url) has no host") }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(url.port ?? 80), &hints, &list)
        guard status == 0, let first = list else {
            throw WebSocketError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var failure = "no address"
        var address: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = address {
            address = candidate.pointee.ai_next
            let descriptor = socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype, candidate.pointee.ai_protocol)
            guard descriptor >= 0 else { continue }
            configure(descriptor, timeout: timeout)
            if systemConnect(descriptor, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 { return descriptor }
            failure = String(cString: strerror(errno))
            _ = closeDescriptor(descriptor)
        }
        throw WebSocketError("cannot connect to \(host):\(url.port ?? 80): \(failure)")
    }

    /// No Nagle delay (a poke is one small frame), sends bounded by `timeout` (on Linux the
    /// send timeout also bounds the connect), and no SIGPIPE from a peer that went away.
    private static func configure(_ descriptor: Int32, timeout: Duration) {
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var limit = timeval(tv_sec: .init(timeout.components.seconds), tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { raw in systemSend(descriptor, raw.baseAddress, raw.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw WebSocketError("a send failed: \(String(cString: strerror(errno)))")
            }
            sent += count
        }
    }

    private static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(descriptor)
        #else
            Darwin.close(descriptor)
        #endif
    }

    // The class's own connect, send and close hide the C functions of those names.

    private static func systemConnect(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
            Glibc.connect(descriptor, address, length)
        #else
            Darwin.connect(descriptor, address, length)
        #endif
    }

    private static func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
        #else
            Darwin.send(descriptor, bytes, count, 0)
        #endif
    }
}
