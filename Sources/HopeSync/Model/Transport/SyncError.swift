import Foundation

/// Every failure the runtime reports. Apps switch on ``code`` (with a `default`: codes may be
/// added); messages never carry filter values or tokens.
public struct SyncError: Error, Sendable, Equatable, LocalizedError {
    public var code: Code
    public var message: String
    public var serverError: ServerError?

    public init(_ code: Code, _ message: String, serverError: ServerError? = nil) {
        self.code = code
        self.message = message
        self.serverError = serverError
    }

    public var errorDescription: String? { message }

    /// A timeout or I/O failure (including a switched-off network): never a cancellation, never
    /// anything with an HTTP status.
    public var isNetworkFailure: Bool {
        code == .connectivity || code == .networkDisabled
    }

    public var httpStatus: Int? { serverError?.status }
}
