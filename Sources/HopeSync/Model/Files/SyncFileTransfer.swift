/// A transfer in progress, as ``SyncEngine/fileTransfers()`` reports it.
public struct SyncFileTransfer: Sendable, Equatable, Identifiable {
    public enum Direction: Sendable, Equatable {
        case upload, download
    }

    public var object: FileObject
    public var direction: Direction
    public var bytesDone: Int64
    /// Nil while the size is not known yet.
    public var bytesTotal: Int64?

    public var id: String { object.description }

    public init(object: FileObject, direction: Direction, bytesDone: Int64, bytesTotal: Int64?) {
        self.object = object
        self.direction = direction
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
    }
}
