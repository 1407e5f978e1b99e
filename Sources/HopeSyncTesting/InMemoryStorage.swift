import Foundation
@_spi(Transport) import HopeSync

/// A Storage in memory with the real one's rules for file columns: a user reads and writes only
/// objects in their own folder (another's reads as not found, a write there is refused), an
/// object is never replaced (uploading one already there answers "already exists", which
/// clients count as done), and its test controls make the failures the real one can have. For
/// apps' tests and previews: objects are held in memory, so keep them small.
public actor InMemoryStorage {
    private var objects: [String: Data] = [:]
    private var pendingFailures: [SyncError] = []
    private var refusesTokens = false
    /// Every request, in order: `upload bucket/path` or `download bucket/path`.
    public private(set) var requestLog: [String] = []

    public init() {}

    @_spi(Transport) public func upload(
        _ source: URL, as object: FileObject, for user: Credentials, progress: @escaping @Sendable (Int64) -> Void
    )
        async throws(SyncError)
    {
        requestLog.append("upload \(object)")
        try admit(object, for: user, refusal: 403)
        guard objects[object.description] == nil else { return }
        do {
            let data = try Data(contentsOf: source)
            objects[object.description] = data
            progress(Int64(data.count))
        } catch {
            throw SyncError(.localFile, "Cannot read \(source.lastPathComponent)")
        }
    }

    @_spi(Transport) public func download(
        _ object: FileObject, to destination: URL, for user: Credentials, progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws(SyncError) {
        requestLog.append("download \(object)")
        // Storage hides another user's object as not there.
        try admit(object, for: user, refusal: 404)
        guard let data = objects[object.description] else { throw Self.notFound(object) }
        do {
            try data.write(to: destination)
        } catch {
            throw SyncError(.localFile, "Cannot write \(destination.lastPathComponent)")
        }
        progress(Int64(data.count), Int64(data.count))
    }

    // MARK: Test controls

    /// The objects held, by `bucket/path`.
    public var contents: [String: Data] { objects }

    /// An object removed behind the clients' backs (an operator's delete, a lost object).
    public func remove(_ object: FileObject) {
        objects[object.description] = nil
    }

    /// The next `count` requests fail with `error`.
    public func failNextRequests(_ count: Int, with error: SyncError) {
        pendingFailures += Array(repeating: error, count: count)
    }

    /// The failures still waiting for requests are dropped.
    public func clearFailures() {
        pendingFailures = []
    }

    /// Every token is refused as expired until switched back.
    public func setRefusesTokens(_ refuses: Bool) {
        refusesTokens = refuses
    }

    /// How many requests named `object`.
    public func requests(for object: FileObject) -> Int {
        requestLog.filter { $0.hasSuffix(" \(object)") }.count
    }

    private func admit(_ object: FileObject, for user: Credentials, refusal: Int) throws(SyncError) {
        if !pendingFailures.isEmpty { throw pendingFailures.removeFirst() }
        if refusesTokens { throw SyncError(.accessToken, "Storage refused the access token: jwt expired") }
        guard object.owner == user.userID else {
            if refusal == 404 { throw Self.notFound(object) }
            throw SyncError(
                .server, "new row violates row-level security policy",
                serverError: ServerError(status: 403, code: "Unauthorized", message: "new row violates row-level security policy"))
        }
    }

    private static func notFound(_ object: FileObject) -> SyncError {
        SyncError(
            .server, "Storage has no object \(object.file.name) in \(object.bucket) for this user",
            serverError: ServerError(status: 404, code: "NoSuchKey", message: "Object not found"))
    }
}

/// The storage is a file transport (`@_spi(Transport) import HopeSync`).
@_spi(Transport) extension InMemoryStorage: SyncFileTransport {}
