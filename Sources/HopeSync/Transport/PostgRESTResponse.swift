import Foundation
import HopeSyncModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An answer from PostgREST (or from whatever stands in front of it).
struct PostgRESTResponse: Sendable {
    let status: Int
    let body: Data
    /// The server's clock, from the answer's `Date` header.
    var serverTimeMs: Int64? = nil

    var isSuccess: Bool { (200..<300).contains(status) }

    /// The server's error, read from any body: PostgREST's own shape, the gateway's
    /// `{"message": ...}`, or something that is not JSON at all (a proxy's HTML page, a body cut
    /// short), which is summed up, never quoted.
    var serverError: ServerError {
        let parsed = try? JSONValue(parsing: body)
        guard let json = parsed, case .object = json else {
            let summary = body.isEmpty ? "an empty body" : parsed == nil ? "a body that is not JSON" : "a body that is not an error object"
            return ServerError(status: status, code: nil, message: "HTTP \(status) with \(summary)")
        }
        func text(_ key: String) -> String? {
            switch json[key] {
            case nil, .null?: nil
            case .string(let text)?: text
            case let other?: other.serialized()
            }
        }
        let message = text("message") ?? text("msg") ?? text("error_description") ?? text("error")
        return ServerError(
            status: status,
            code: text("code"),
            message: message.map { String($0.prefix(Self.messageLimit)) } ?? "HTTP \(status) with no message",
            details: text("details"),
            hint: text("hint")
        )
    }

    /// Long enough for any PostgREST message, short enough that an odd body cannot flood a log.
    static let messageLimit = 500

    /// Whether PostgREST refused the token itself, so a fresh one may succeed
    /// (``ServerError/refusesToken``). The body is read only for a 401.
    var refusedToken: Bool { status == 401 && serverError.refusesToken }

    /// The body as JSON, for a successful answer that carries rows.
    func json(of table: String) throws(SyncError) -> JSONValue {
        if body.isEmpty, status == 204 { return .array([]) }
        do {
            return try JSONValue(parsing: body)
        } catch {
            throw SyncError(.decoding, "The answer for \(table) is not JSON (\(error.reason) at byte \(error.offset))")
        }
    }

    /// The refusal as the runtime reports it. A missing column or table is schema drift (the
    /// server needs a migration), named so the app can say which; the rest is the server's.
    func failure(for table: String) -> SyncError {
        let error = serverError
        if let drift = SchemaDrift(error) {
            return SyncError(.schemaDrift, drift.description, serverError: error)
        }
        let code = error.code.map { ", \($0)" } ?? ""
        return SyncError(
            .server, "The server refused a request on \(table) (HTTP \(error.status)\(code)): \(error.message)", serverError: error)
    }
}

extension SyncError {
    /// The calling task was cancelled while (or before) its request was under way.
    static var requestCancelled: SyncError { SyncError(.cancelled, "The request was cancelled") }

    /// A failure to get any answer: a cancellation stays a cancellation, a malformed URL is the
    /// request's fault, and everything else (timeouts, lost connections, DNS, TLS) is the
    /// network's. The message is fixed per kind: URLError's own text names the URL.
    init(requestFailure error: any Error) {
        if error is CancellationError {
            self = .requestCancelled
            return
        }
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            self.init(.connectivity, "The request failed before an answer came")
            return
        }
        switch URLError.Code(rawValue: nsError.code) {
        case .cancelled:
            self = .requestCancelled
        case .badURL, .unsupportedURL:
            self.init(.invalidRequest, "The request's URL is not one that can be sent")
        case .timedOut:
            self.init(.connectivity, "The server did not answer in time")
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive:
            self.init(.connectivity, "There is no network connection")
        case .cannotFindHost, .dnsLookupFailed:
            self.init(.connectivity, "The server's name could not be resolved")
        case .cannotConnectToHost:
            self.init(.connectivity, "The server could not be reached")
        case .networkConnectionLost:
            self.init(.connectivity, "The connection was lost")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            self.init(.connectivity, "A secure connection could not be made")
        default:
            self.init(.connectivity, "The request failed before an answer came (URL error \(nsError.code))")
        }
    }
}
