/// How a file transfer's failure reads.
extension SyncError {
    /// The object is not there, or not there for this user (Storage answers a read another
    /// user's policy hides as not found too).
    public var isObjectNotFound: Bool { code == .server && serverError?.status == 404 }

    /// Storage refused this user the object, or the token (after a fresh one was tried).
    public var isObjectRefused: Bool {
        code == .accessToken || (code == .server && [401, 403].contains(serverError?.status ?? 0))
    }
}
