import HopeSyncSQLite

/// A file's last failure as `_sync_files` keeps it: the code, the server's status, the message.
struct StoredFileError {
    let error: SyncError

    init?(_ row: Row, at index: Int) {
        guard let code = row.text(at: index) else { return nil }
        let status = row.isNull(at: index + 1) ? nil : Int(row.int64(at: index + 1))
        let message = row.text(at: index + 2) ?? ""
        error = SyncError(
            Self.codes[code] ?? .syncFailed, message, serverError: status.map { ServerError(status: $0, code: nil, message: message) })
    }

    /// The codes a transfer fails with, by name.
    static let codes: [String: SyncError.Code] = Dictionary(
        uniqueKeysWithValues: [
            SyncError.Code.server, .connectivity, .networkDisabled, .accessToken, .configuration, .localFile, .decoding, .invalidRequest,
        ].map { ($0.description, $0) })
}
