import Foundation

/// The server's refusal, as PostgREST reports it.
public struct ServerError: Sendable, Equatable, Codable {
    public var status: Int
    public var code: String?
    public var message: String
    public var details: String?
    public var hint: String?

    public init(status: Int, code: String?, message: String, details: String? = nil, hint: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.hint = hint
    }
}

extension ServerError {
    /// Whether PostgREST refused the token itself (invalid, or expired: PGRST301 in v12,
    /// PGRST303 in v13), so a fresh one may succeed. The gateway's 401 (a wrong `apikey`) is not.
    var refusesToken: Bool {
        status == 401 && ["PGRST301", "PGRST303"].contains(code)
    }
}
