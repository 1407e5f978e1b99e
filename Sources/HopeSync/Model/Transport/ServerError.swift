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
