/// Where a file stands on this device. More states may come: a `switch` needs a `default`.
public struct SyncFileState: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: String, Sendable, Hashable {
        case uploadQueued = "upload"
        case downloadQueued = "download"
        case notDownloaded = "remote"
        case synced
        case missing
        case refused
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// The state as the store records it.
    package init?(stored: String) {
        guard let kind = Kind(rawValue: stored) else { return nil }
        self.kind = kind
    }

    /// How the store records it.
    package var stored: String { kind.rawValue }

    public var description: String { kind.rawValue }

    /// Attached here and not yet on the server: rows naming it wait to be pushed until it is.
    public static let uploadQueued = SyncFileState(.uploadQueued)
    /// Named by a row, not here yet: fetched by the next sync.
    public static let downloadQueued = SyncFileState(.downloadQueued)
    /// Named by a row of an `on_read` column and not asked for yet: fetched when the app first
    /// asks for it (``SyncStore/fileURL(for:)``, ``SyncEngine/localFile(_:)``).
    public static let notDownloaded = SyncFileState(.notDownloaded)
    /// Here and on the server.
    public static let synced = SyncFileState(.synced)
    /// The server says it has no such object (Storage's 404, or 400 whose body says 404). A copy
    /// here is kept while a row names it; asked again with growing pauses.
    public static let missing = SyncFileState(.missing)
    /// The server refused this user the object (a policy, or a token refused twice). A copy here
    /// is kept; asked again with growing pauses.
    public static let refused = SyncFileState(.refused)
}
