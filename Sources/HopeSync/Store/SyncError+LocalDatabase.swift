import HopeSyncSQLite

/// The local database's failures as the store reports them: never SQLite's own error type, which
/// apps cannot import.
extension SyncError {
    /// `error` as the store reports it: a SyncError as it is; anything else as `.localDatabase`
    /// (a full disk, a damaged file), or `.clientClosed` when the store had been closed.
    init(local error: any Error, closed: Bool = false) {
        switch error {
        case let error as SyncError: self = error
        case let error as SQLiteError where closed: self.init(.clientClosed, "The local database is closed (\(error.message)).")
        default: self.init(.localDatabase, "The local database failed: \(error)")
        }
    }

    /// Runs `body` on the local database, every failure reported as a SyncError.
    static func local<T>(_ body: () throws -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch {
            throw SyncError(local: error)
        }
    }

    /// Runs `body`, reporting SQLite's failures as SyncErrors and passing any other as it is (the
    /// app's own, or a row type's Codable failure).
    static func reportingSQLite<T>(closed: @autoclosure () -> Bool = false, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw SyncError(local: error, closed: closed())
        }
    }
}
