import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Which folder of its bucket a file's object is in (decision 0048, "files of shared rows"): a
/// row in a shared scope keeps its files in the scope's folder, any other row in its owner's,
/// this user's. A row following another's scope is in its parent's as this device holds the
/// parent (the server keeps the two equal), so a photo goes where its task went at once.
extension SyncStore {
    /// The folders to fetch `file` from: those of the rows naming it, the user's own first; the
    /// user's own when no row names it.
    func downloadFolders(of file: SyncFile, in bucket: String, _ database: Database) throws -> [UUID] {
        let folders = try folders(naming: file, in: bucket, database)
        return folders.isEmpty ? [userID] : folders
    }

    /// The folders to upload `file` into: those of the rows naming it that the user may write
    /// (their own; a scope they own or edit, or one no pull listed yet: made here, not synced).
    /// The user's own when there is none (a file only a rejected write names stays theirs).
    func uploadFolders(of file: SyncFile, in bucket: String, _ database: Database) throws -> [UUID] {
        let writable = try folders(naming: file, in: bucket, database).filter { folder in
            if folder == userID { return true }
            return try role(in: folder.lowercasedString, database) != .viewer
        }
        return writable.isEmpty ? [userID] : writable
    }

    /// The distinct folders of the rows naming `file` in `bucket` (a deleted row while its delete
    /// is unsent included, as for keeping the copy), the user's own first.
    private func folders(naming file: SyncFile, in bucket: String, _ database: Database) throws -> [UUID] {
        var folders: [UUID] = []
        for (table, column) in schema.fileColumns where column.type.bucket == bucket {
            let named = try database.fetchAll(
                """
                SELECT DISTINCT \(folderExpression(of: table)) FROM \(quoted(table.name)) AS t
                WHERE t.\(quoted(column.name)) = ? AND (t.deleted_ms IS NULL OR t._dirty <> \(DirtyState.clean.sql))
                """, [.text(file.name)]
            ) { row in row.text(at: 0).flatMap(UUID.init(text:)) ?? userID }
            for folder in named where !folders.contains(folder) { folders.append(folder) }
        }
        return folders.filter { $0 == userID } + folders.filter { $0 != userID }
    }

    /// SQL for the scope a row `t` of `table` is in, null for an own row.
    private func folderExpression(of table: TableSchema) -> String {
        guard let scope = table.scope else { return "NULL" }
        switch scope.kind {
        case .scope: return "t.\(quoted(table.primaryKey))"
        case .scoped: return "t.\(quoted(scope.column))"
        case .follows:
            guard let through = scope.through else { return "t.\(quoted(scope.column))" }
            // The parent's scope while this device holds the parent, else the row's own copy of it.
            let parents = schema.tables(sharedBy: scope.scopeTable).filter { $0.scope?.kind == .scoped || $0.scope?.kind == .scope }
            let cases = parents.map { parent -> String in
                let column = parent.scope?.kind == .scope ? parent.primaryKey : parent.scope?.column ?? parent.primaryKey
                let match = "FROM \(quoted(parent.name)) AS p WHERE p.\(quoted(parent.primaryKey)) = t.\(quoted(through))"
                return "WHEN EXISTS (SELECT 1 \(match)) THEN (SELECT p.\(quoted(column)) \(match))"
            }
            return cases.isEmpty ? "t.\(quoted(scope.column))" : "CASE \(cases.joined(separator: " ")) ELSE t.\(quoted(scope.column)) END"
        default: return "NULL"
        }
    }
}
