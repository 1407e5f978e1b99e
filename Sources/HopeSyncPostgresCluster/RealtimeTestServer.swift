import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The test Realtime server (Tests/Servers/realtime_server.py) over one database of a cluster:
/// the Phoenix protocol as Supabase Realtime speaks it, private channels authorised by the
/// database's `realtime.messages` policies, broadcasts after commit, and failure switches. The
/// database needs Realtime's schema (``SupabasePrelude/realtime``).
public final class RealtimeTestServer: Sendable {
    /// The secret every token is signed with (Realtime's JWT secret).
    public static let secret = "hope-sync-tests-realtime-jwt-secret-0123456789"

    private let server: PythonServer
    /// The project URL a client is given (`http://127.0.0.1:<port>`); the socket is under
    /// `/realtime/v1/websocket`.
    public let url: URL

    public init(databaseURL: String, root: URL) throws {
        server = try PythonServer(
            script: "realtime_server.py", arguments: ["--database-url", databaseURL, "--jwt-secret", Self.secret], root: root)
        url = URL(string: "http://127.0.0.1:\(server.port)")!
    }

    public func stop() { server.stop() }

    /// A token for `user`, signed in, expiring `expiresIn` seconds from now.
    public func token(for user: UUID, expiresIn: Int = 3_600) async throws -> String {
        try await get("token", ["sub": user.uuidString.lowercased(), "exp_in": String(expiresIn)])
    }

    /// The project's anon key: what a client puts in the socket's `apikey`.
    public func anonKey() async throws -> String {
        try await get("token", ["role": "anon", "exp_in": "86400"])
    }

    /// The failure switches: broadcasts dropped with probability `drop`, each sent `delay`
    /// late and `duplicates` more times; heartbeats unanswered; v2 broadcasts as binary frames.
    public func setFaults(
        drop: Double = 0, delay: Duration = .zero, duplicates: Int = 0, withholdHeartbeats: Bool = false, binary: Bool = false
    ) async throws {
        let milliseconds = delay.components.seconds * 1_000 + delay.components.attoseconds / 1_000_000_000_000_000
        _ = try await get(
            "control",
            [
                "drop": String(drop), "delay_ms": String(milliseconds), "duplicate": String(duplicates),
                "withhold_heartbeats": withholdHeartbeats ? "1" : "0", "binary": binary ? "1" : "0",
            ])
    }

    /// Cuts every socket at once, without a close frame.
    public func killSockets() async throws { _ = try await get("kill") }

    /// Ends every channel as an expired token does: a `system` error, then `phx_close`.
    public func expireTokens() async throws { _ = try await get("expire") }

    /// What the server counted: connections, joins, refused_joins, heartbeats, access_tokens,
    /// broadcasts, dropped, closed_channels; channels and sockets open now.
    public func stats() async throws -> [String: Int] {
        let text = try await get("stats")
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Int]
        return object ?? [:]
    }

    private func get(_ path: String, _ query: [String: String] = [:]) async throws -> String {
        var components = URLComponents(url: url.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let (data, response) = try await URLSession.shared.data(from: components.url!)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw PythonServer.Failure(description: "realtime_server.py answered \(response) to /\(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
