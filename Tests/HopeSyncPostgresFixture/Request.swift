import Foundation
import HopeSyncPostgresClient

/// The roles PostgREST switches to, from the JWT's `role` claim.
public enum RequestRole: String, Sendable {
    case anon
    case authenticated
    case serviceRole = "service_role"
}

extension Connection {
    /// Runs `body` the way PostgREST runs one request: a single transaction whose first
    /// statement sets the role and the JWT claims (`auth.uid()` reads `sub`).
    @discardableResult
    public func request<T>(as role: RequestRole, user: UUID? = nil, _ body: (Connection) throws -> T) throws -> T {
        var claims = #"{"role":"\#(role.rawValue)""#
        if let user { claims += #","sub":"\#(user.uuidString.lowercased())""# }
        claims += "}"
        return try transaction { connection in
            try connection.execute(
                "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
                [role.rawValue, claims])
            return try body(connection)
        }
    }

    /// A request signed in as `user`.
    @discardableResult
    public func request<T>(asUser user: UUID, _ body: (Connection) throws -> T) throws -> T {
        try request(as: .authenticated, user: user, body)
    }
}
