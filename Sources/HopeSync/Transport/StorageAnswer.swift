import Foundation
import HopeSyncModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Storage's answer to one request, read for what it means. Storage sends most refusals as
/// HTTP 400 with the real status in the body (`{"statusCode":"404","error":"not_found",
/// "code":"NoSuchKey","message":"Object not found"}`), newer routes as that status with
/// `{"code","message"}`: both become the status they mean, with the wire's status in the details.
struct StorageAnswer {
    let httpStatus: Int
    /// The status the answer means: the body's `statusCode` when it gives one.
    let status: Int
    let code: String?
    let message: String

    init(_ response: URLResponse, body: Data) {
        httpStatus = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = try? JSONValue(parsing: body)
        func text(_ key: String) -> String? {
            switch json?[key] {
            case .string(let text): text
            case .number(let literal): literal
            default: nil
            }
        }
        status = text("statusCode").flatMap(Int.init) ?? httpStatus
        code = text("code") ?? text("error")
        message = text("message") ?? text("error") ?? "Storage answered HTTP \(httpStatus)"
    }

    var isSuccess: Bool { (200..<300).contains(httpStatus) }

    /// "The resource already exists" (409 Duplicate, KeyAlreadyExists).
    var alreadyExists: Bool { !isSuccess && status == 409 }

    /// The token was refused: expired, or not a valid JWT.
    var refusedToken: Bool {
        guard !isSuccess else { return false }
        if httpStatus == 401 || status == 401 { return true }
        let lowered = (message + " " + (code ?? "")).lowercased()
        return (status == 400 || status == 403) && (code == "InvalidJWT" || lowered.contains("jwt") || lowered.contains("exp"))
    }

    /// The refusal as a ``SyncError``: `.server` with the status it means.
    func failure(for object: FileObject) -> SyncError {
        var what = message
        if status == 404 { what = "Storage has no object \(object.file.name) in \(object.bucket) for this user" }
        if refusedToken { return SyncError(.accessToken, "Storage refused the access token: \(message)") }
        return SyncError(
            .server, what,
            serverError: ServerError(
                status: status, code: code, message: message, details: status == httpStatus ? nil : "Storage answered HTTP \(httpStatus)"))
    }
}
