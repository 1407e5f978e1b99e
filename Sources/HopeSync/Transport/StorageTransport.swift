import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Files over Supabase Storage's REST API, as its own clients call it: upload
/// `POST /storage/v1/object/<bucket>/<user_id>/<name>` from a file on disk, download
/// `GET /storage/v1/object/authenticated/<bucket>/<user_id>/<name>` into one, each signed with
/// the user's token and the project's key. Storage's own rules (row-level security on
/// `storage.objects`, the generated policies) decide who may do what.
///
/// An upload never replaces (no `x-upsert`): an object already there is the same bytes, since
/// its name is their hash, so Storage's "already exists" is success. Storage answers most
/// refusals with HTTP 400 and the real status in its body (`{"statusCode":"404",
/// "error":"not_found", …}`), newer routes with the status itself; both read the same
/// (`StorageAnswer`). A refused token is replaced once, as ``PostgRESTTransport`` does.
@_spi(Transport) public struct StorageTransport: SyncFileTransport {
    public struct Configuration: Sendable {
        /// The project's URL, e.g. `https://abcd.supabase.co`; requests go to `<this>/storage/v1`.
        public var projectURL: URL
        /// The project's anon key, sent as `apikey`.
        public var anonKey: String
        /// A fresh token, asked only when Storage refuses the one a request carried.
        public var accessToken: @Sendable () async throws -> String?
        /// How long a transfer may go without a byte moving (a 50 MB file takes as long as it takes).
        public var idleTimeout: TimeInterval
        public var session: URLSession

        public init(
            projectURL: URL,
            anonKey: String,
            idleTimeout: TimeInterval = 60,
            session: URLSession = .shared,
            accessToken: @escaping @Sendable () async throws -> String?
        ) {
            self.projectURL = projectURL
            self.anonKey = anonKey
            self.idleTimeout = idleTimeout
            self.session = session
            self.accessToken = accessToken
        }
    }

    public let configuration: Configuration
    private let refreshedTokens = RefreshedTokens()

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The Storage of the project a PostgREST transport talks to, with its key and tokens.
    public init(postgREST: PostgRESTTransport.Configuration) {
        self.init(
            configuration: Configuration(
                projectURL: postgREST.projectURL, anonKey: postgREST.anonKey, session: postgREST.session,
                accessToken: postgREST.accessToken))
    }

    public func upload(_ source: URL, as object: FileObject, for user: Credentials, progress: @escaping @Sendable (Int64) -> Void)
        async throws(SyncError)
    {
        let answer = try await signed(for: user) { token throws(SyncError) in
            var request = try request("POST", ["object", object.bucket] + object.path.split(separator: "/").map(String.init), token)
            request.setValue(Self.contentType(of: object.file), forHTTPHeaderField: "Content-Type")
            request.setValue("false", forHTTPHeaderField: "x-upsert")
            request.setValue("max-age=31536000", forHTTPHeaderField: "cache-control")
            let (data, response) = try await exchange {
                // A file small enough goes from memory: Linux Foundation's file body source can
                // trap (a `try!` in its EasyHandle) when the server answers before the body is
                // read, as Storage does for an object that exists.
                if let bytes = Self.inMemoryBody(source) {
                    return try await configuration.session.upload(for: request, from: bytes, delegate: TransferProgress(sent: progress))
                }
                return try await configuration.session.upload(for: request, fromFile: source, delegate: TransferProgress(sent: progress))
            }
            return StorageAnswer(response, body: data)
        }
        // The name is the bytes' hash: an object already there holds these bytes.
        guard answer.isSuccess || answer.alreadyExists else { throw answer.failure(for: object) }
    }

    /// Files up to this size are uploaded from memory.
    static let inMemoryUploadLimit = 16 << 20

    private static func inMemoryBody(_ source: URL) -> Data? {
        let size = (try? source.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? Int.max
        return size <= inMemoryUploadLimit ? try? Data(contentsOf: source) : nil
    }

    public func download(
        _ object: FileObject, to destination: URL, for user: Credentials, progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws(SyncError) {
        var downloaded: URL?
        let answer = try await signed(for: user) { token throws(SyncError) in
            let request = try request(
                "GET", ["object", "authenticated", object.bucket] + object.path.split(separator: "/").map(String.init), token)
            let (location, response) = try await exchange {
                try await configuration.session.download(for: request, delegate: Self.downloadProgress(progress))
            }
            let answer = StorageAnswer(response, body: Data())
            guard answer.isSuccess else {
                // An error's body is small: read it, and drop the file it came in.
                defer { try? FileManager.default.removeItem(at: location) }
                return StorageAnswer(response, body: (try? Data(contentsOf: location)) ?? Data())
            }
            downloaded = location
            return answer
        }
        guard answer.isSuccess, let downloaded else { throw answer.failure(for: object) }
        do {
            try FileManager.default.moveItem(at: downloaded, to: destination)
            let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.int64Value
            if let size { progress(size, size) }
        } catch {
            try? FileManager.default.removeItem(at: downloaded)
            throw SyncError(.localFile, "Cannot keep the download of \(object.file.name): \(error.localizedDescription)")
        }
    }

    // MARK: Sending

    /// Runs `exchange` with the user's token; when Storage refuses the token, once more with a
    /// fresh one (never in a loop).
    private func signed(for user: Credentials, _ exchange: (String) async throws(SyncError) -> StorageAnswer)
        async throws(SyncError) -> StorageAnswer
    {
        let token = await refreshedTokens.token(for: user)
        let answer = try await exchange(token)
        guard answer.refusedToken else { return answer }
        let fresh: String?
        do {
            fresh = try await configuration.accessToken()
        } catch is CancellationError {
            throw .requestCancelled
        } catch {
            throw SyncError(.accessToken, "The access token provider failed (\(type(of: error)))")
        }
        guard let fresh, !fresh.isEmpty, fresh != token else {
            throw SyncError(.accessToken, "Storage refused the access token and no other is available: sign in again")
        }
        await refreshedTokens.remember(fresh, replacing: user)
        return try await exchange(fresh)
    }

    private func request(_ method: String, _ segments: [String], _ token: String) throws(SyncError) -> URLRequest {
        var url = configuration.projectURL.appendingPathComponent("storage").appendingPathComponent("v1")
        for segment in segments { url = url.appendingPathComponent(segment) }
        var request = URLRequest(url: url, timeoutInterval: configuration.idleTimeout)
        request.httpMethod = method
        request.setValue(configuration.anonKey, forHTTPHeaderField: "apikey")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    private func exchange<Value>(_ operation: () async throws -> (Value, URLResponse)) async throws(SyncError) -> (Value, URLResponse) {
        if Task.isCancelled { throw .requestCancelled }
        do {
            return try await operation()
        } catch {
            throw Task.isCancelled ? .requestCancelled : SyncError(requestFailure: error)
        }
    }

    /// The delegate that reports a download's bytes. Not on Linux: there, swift-corelibs-foundation
    /// writes the body into the downloaded file twice when a task's delegate is a download
    /// delegate, so there a download is reported once, whole, when its file is in place.
    private static func downloadProgress(_ progress: @escaping @Sendable (Int64, Int64?) -> Void) -> TransferProgress? {
        #if canImport(FoundationNetworking)
            nil
        #else
            TransferProgress(received: progress)
        #endif
    }

    /// What the object is sent as; Storage keeps it and serves it back with it.
    static func contentType(of file: SyncFile) -> String {
        switch file.fileExtension {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "heic": "image/heic"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "pdf": "application/pdf"
        case "mp4": "video/mp4"
        case "mov": "video/quicktime"
        case "txt": "text/plain"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
