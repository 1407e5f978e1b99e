import Foundation

/// A file as Storage holds it: in a bucket, in a folder, under its content's name. The folder
/// is its owner's, or for a row in a shared scope the scope's (decision 0048).
public struct FileObject: Hashable, Sendable, CustomStringConvertible {
    public let bucket: String
    /// The folder's id: the owner's user id, or the scope's id for a shared row's file.
    public let owner: UUID
    public let file: SyncFile

    package init(bucket: String, owner: UUID, file: SyncFile) {
        self.bucket = bucket
        self.owner = owner
        self.file = file
    }

    /// `<folder>/<name>`: the path within the bucket.
    public var path: String { file.objectPath(owner: owner) }

    public var description: String { "\(bucket)/\(path)" }
}
