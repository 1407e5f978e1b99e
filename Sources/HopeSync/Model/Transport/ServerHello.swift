import HopeSyncModel

/// What the server answers a device's hello with (decision 0051).
@_spi(Transport) public struct ServerHello: Sendable, Equatable {
    /// The server function a device says hello through.
    public static let function = "sync_hello"

    /// The oldest schema version (a migration number) the server lets write; nil: every build.
    public var oldestWriter: Int?

    public init(oldestWriter: Int?) {
        self.oldestWriter = oldestWriter
    }

    /// The function's answer, `{"oldest_writer": n}` (null: none).
    public init(answer: JSONValue) throws(SyncError) {
        switch answer["oldest_writer"] {
        case .null?: oldestWriter = nil
        case .number(let text)? where Int(text) != nil: oldestWriter = Int(text)
        default: throw SyncError(.decoding, "The answer of \(Self.function) has no oldest_writer")
        }
    }

    /// Whether a build of `schemaVersion` may write.
    public func letsWrite(schemaVersion: Int) -> Bool {
        oldestWriter.map { schemaVersion >= $0 } ?? true
    }
}

extension SyncError {
    /// What a pass throws once the server refused this build's writes (its pulls ran).
    static var updateRequired: SyncError {
        SyncError(
            .updateRequired,
            "The server no longer accepts writes from this version of the app: update it. Unsent writes stay on this device and are sent once it is updated."
        )
    }
}
