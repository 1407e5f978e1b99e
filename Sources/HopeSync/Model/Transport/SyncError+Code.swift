extension SyncError {
    /// What kind of failure an error is. New codes come with new failures: a `switch` over a code
    /// needs a `default`, and `case .connectivity:` matches as for an enum (swift-nio's and
    /// grpc-swift's error codes). Compare codes, never their text.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String, Sendable, Hashable {
            case networkDisabled, connectivity, server, syncFailed, clientClosed, accessToken, signedOut, invalidRequest
            case decoding, encoding, configuration, schemaDrift, cancelled, localDatabase, localFile, notAllowed, updateRequired
        }

        private let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// The code's name, for logs (`connectivity`).
        public var description: String { kind.rawValue }

        /// `setNetworkEnabled(false)` is in force and the call needed the server.
        public static let networkDisabled = Code(.networkDisabled)
        /// No connection, or no answer in time.
        public static let connectivity = Code(.connectivity)
        /// The server refused the request; ``SyncError/serverError`` says why.
        public static let server = Code(.server)
        /// A sync pass stopped with writes still queued (status and code only).
        public static let syncFailed = Code(.syncFailed)
        /// The local database is closed.
        public static let clientClosed = Code(.clientClosed)
        /// No access token could be had, or the server refused it.
        public static let accessToken = Code(.accessToken)
        /// Nobody is signed in (or another user is): nothing was sent. The engine waits for
        /// this store's user and resumes by itself.
        public static let signedOut = Code(.signedOut)
        /// The request cannot be sent as written.
        public static let invalidRequest = Code(.invalidRequest)
        /// The server's answer could not be read.
        public static let decoding = Code(.decoding)
        /// A value could not be written out.
        public static let encoding = Code(.encoding)
        /// The library was set up wrongly (an unknown table, a database from a newer schema).
        public static let configuration = Code(.configuration)
        /// The server lacks a column the client has (PGRST204): the server needs a migration.
        public static let schemaDrift = Code(.schemaDrift)
        /// The calling task was cancelled: neither a network nor a server failure.
        public static let cancelled = Code(.cancelled)
        /// The local database failed a read or a write (a full disk, a damaged file); the
        /// message has SQLite's own.
        public static let localDatabase = Code(.localDatabase)
        /// A file in the store's folder could not be read or written (a full disk, a file the
        /// app attached that cannot be read); the message names it.
        public static let localFile = Code(.localFile)
        /// The user's role in a shared scope does not allow it: a save to a scope they only
        /// view, or a membership change only an owner may make (``SyncError/serverError`` holds
        /// the server's refusal when it refused); the message names the scope.
        public static let notAllowed = Code(.notAllowed)
        /// The server no longer lets this build of the app write (its `oldest_writer` is newer
        /// than the build's schema version): the app must be updated. Every unsent write stays
        /// on the device and goes once the updated app runs; pulls go on meanwhile.
        public static let updateRequired = Code(.updateRequired)
    }
}
