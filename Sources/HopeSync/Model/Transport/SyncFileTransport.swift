import Foundation

/// How the engine moves files to and from Storage (Supabase: ``StorageTransport``). Each call is
/// one object; bytes go from and to files on disk, never whole in memory. Errors are
/// ``SyncError``s: a missing object is `.server` with status 404 (Storage's "400 whose body says
/// 404" read as what it means), a refusal 403.
@_spi(Transport) public protocol SyncFileTransport: Sendable {
    /// Uploads the file at `source` as `object`, never replacing one: an object already there
    /// holds the same bytes (its name is their hash), so it counts as uploaded. `progress` gets
    /// the bytes sent so far.
    func upload(_ source: URL, as object: FileObject, for user: Credentials, progress: @escaping @Sendable (Int64) -> Void)
        async throws(SyncError)

    /// Downloads `object` into `destination`, which must not exist yet. `progress` gets the bytes
    /// received so far and the total when known.
    func download(
        _ object: FileObject, to destination: URL, for user: Credentials, progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws(SyncError)
}
