import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// A save that puts a shared table's row in another Storage folder (decision 0048, "files of
/// shared rows"): a new row, or one whose scope, or the row it follows, changes. The files it
/// names, and those of the rows following it, must then be in the new folder before the
/// server's rows name them there.
extension StoreWriter {
    /// Queues the upload of those files again when this device holds them: into each folder of
    /// the rows naming them (SyncStore+FileFolders.swift), an object already there counting as
    /// uploaded. The saved row waits for its own files, as for an attach.
    func requeueFilesOfMovedRow(_ values: [SyncValue], _ sql: TableSQL) throws {
        guard let scope = sql.table.scope, scope.kind != .membership, let idIndex = sql.index(of: sql.table.primaryKey) else { return }
        let placing = [scope.column, scope.through].compactMap { $0 }.filter { $0 != sql.table.primaryKey }
        let indexes = placing.compactMap { sql.index(of: $0) }
        let stored = try database.fetchOne(
            "SELECT 1\(placing.map { ", " + quoted($0) }.joined()) FROM \(sql.quotedName) \(sql.whereKey)", [values[idIndex].databaseValue]
        ) { row in (0..<indexes.count).map { row.text(at: $0 + 1) } }
        guard stored != indexes.map({ values[$0].text }) else { return }
        for (index, _, bucket) in sql.fileColumns {
            guard let name = values[index].text else { continue }
            try requeueUpload(bucket: bucket, names: "?", [.text(name)])
        }
        guard stored != nil else { return }
        for follower in store.schema.tables(sharedBy: scope.scopeTable) where follower.scope?.kind == .follows {
            guard let through = follower.scope?.through else { continue }
            for column in follower.columns {
                guard let bucket = column.type.bucket else { continue }
                try requeueUpload(
                    bucket: bucket,
                    names:
                        "SELECT \(quoted(column.name)) FROM \(quoted(follower.name)) WHERE \(quoted(through)) = ? AND deleted_ms IS NULL",
                    [values[idIndex].databaseValue])
            }
        }
    }

    private func requeueUpload(bucket: String, names: String, _ arguments: [DatabaseValue]) throws {
        let upload = SyncFileState.uploadQueued.stored
        try database.execute(
            """
            UPDATE _sync_files SET state = ?, attempts = 0, retry_ms = 0, error_code = NULL, error_status = NULL, error_message = NULL
            WHERE bucket = ? AND cached = 1 AND state <> ? AND name IN (\(names))
            """, [.text(upload), .text(bucket), .text(upload)] + arguments)
    }
}
