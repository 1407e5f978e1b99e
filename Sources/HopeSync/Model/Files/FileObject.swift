import Foundation

/// A file as Storage holds it: in a bucket, in its owner's folder, under its content's name.
public struct FileObject: Hashable, Sendable, CustomStringConvertible {
    public let bucket: String
    public let owner: UUID
    public let file: SyncFile

    package init(bucket: String, owner: UUID, file: SyncFile) {
        self.bucket = bucket
        self.owner = owner
        self.file = file
    }

    /// `<user_id>/<name>`: the path within the bucket.
    public var path: String { file.objectPath(owner: owner) }

    public var description: String { "\(bucket)/\(path)" }
}
