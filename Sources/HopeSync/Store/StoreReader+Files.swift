import Foundation
import HopeSyncSQLite

/// The files, as the app sees them: one status per file of the store, observable like any read
/// (`store.observe { try $0.fileStatuses() }` yields again whenever one changes).
extension StoreReader {
    /// Every file this device attached or a row names, by bucket and name.
    public func fileStatuses() throws(SyncError) -> [SyncFileStatus] {
        try SyncError.local {
            try database.fetchAll(
                """
                SELECT bucket, name, state, cached, size, attempts, retry_ms, error_code, error_status, error_message
                FROM _sync_files ORDER BY bucket, name
                """
            ) { row -> SyncFileStatus? in
                guard let file = SyncFile(name: row.text(at: 1) ?? ""), let state = SyncFileState(stored: row.text(at: 2) ?? "") else {
                    return nil
                }
                let retry = row.int64(at: 6)
                return SyncFileStatus(
                    bucket: row.text(at: 0) ?? "", file: file, state: state, isCached: row.int64(at: 3) != 0,
                    size: row.isNull(at: 4) ? nil : row.int64(at: 4), attempts: Int(row.int64(at: 5)),
                    retryAt: retry > 0 ? Date(timeIntervalSince1970: Double(retry) / 1000) : nil,
                    lastError: StoredFileError(row, at: 7)?.error)
            }.compactMap { $0 }
        }
    }
}
