import Foundation
import HopeSyncSQLite

/// Attaching files, and what a save of a row that names one records.
extension StoreWriter {
    /// Copies the file at `url` into the store's folder under its content's name, and returns
    /// that name for a file column. Save the row that names it in this same write: a file no row
    /// names is removed at the next sync. The bytes are read in chunks, never whole in memory.
    public func attachFile(contentsOf url: URL, fileExtension: String? = nil) throws(SyncError) -> SyncFile {
        let given = fileExtension ?? (url.pathExtension.isEmpty ? nil : url.pathExtension)
        return try store.files.attach(copying: url, fileExtension: given).0
    }

    /// Writes `data` into the store's folder under its content's name (see
    /// ``attachFile(contentsOf:fileExtension:)``).
    public func attachFile(_ data: Data, fileExtension: String?) throws(SyncError) -> SyncFile {
        try store.files.attach(data, fileExtension: fileExtension)
    }

    /// Records the files a saved row names: a file this device has and the server may not is
    /// queued for upload (the row waits for it); a name this device neither has nor saw from the
    /// server is refused, since the row would then name an object nobody can upload.
    func registerFiles(_ values: [SyncValue], _ sql: TableSQL) throws {
        for (index, column, bucket) in sql.fileColumns {
            guard case .text(let name) = values[index], let file = SyncFile(name: name) else { continue }
            if store.files.contains(file) {
                try database.execute(
                    """
                    INSERT INTO _sync_files (bucket, name, state, cached, size, created_ms) VALUES (?, ?, ?, 1, ?, ?)
                    ON CONFLICT (bucket, name) DO UPDATE SET state = excluded.state, cached = 1, size = excluded.size,
                        attempts = 0, retry_ms = 0, error_code = NULL, error_status = NULL, error_message = NULL
                    WHERE state NOT IN (?, ?)
                    """,
                    [
                        .text(bucket), .text(name), .text(SyncFileState.uploadQueued.stored),
                        store.files.size(of: file).map(DatabaseValue.integer) ?? .null,
                        .integer(store.state.wallClock()), .text(SyncFileState.synced.stored), .text(SyncFileState.uploadQueued.stored),
                    ])
                continue
            }
            let known = try database.fetchOne("SELECT 1 FROM _sync_files WHERE bucket = ? AND name = ?", [.text(bucket), .text(name)]) {
                _ in true
            }
            let idIndex = sql.index(of: sql.table.primaryKey) ?? 0
            let stored = try database.fetchOne(
                "SELECT \(quoted(column.name)) FROM \(sql.quotedName) \(sql.whereKey)", [values[idIndex].databaseValue]
            ) { $0.text(at: 0) }
            guard known == true || stored == name else {
                throw SyncError(
                    .invalidRequest,
                    "\(sql.table.name).\(column.name) names a file this device does not have: attach it (StoreWriter.attachFile) in the same write"
                )
            }
        }
    }
}
