import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Which folder of its bucket a file's object is in (decision 0048, "files of shared rows"): a
/// row in a shared scope keeps its files in the scope's folder, any other row in its owner's,
/// this user's. A row following another's scope is in its parent's as this device holds the
/// parent (the server keeps the two equal), so a photo goes where its task went at once.
extension SyncStore {
    /// The folders to fetch a file from, given those of the rows naming it: the user's own when
    /// no row names it.
    func downloadFolders(_ folders: [UUID]) -> [UUID] {
        folders.isEmpty ? [userID] : folders
    }

    /// The folders to upload a file into, given those of the rows naming it: those the user may
    /// write (their own; a scope they own or edit, or one no pull listed yet: made here, not
    /// synced). The user's own when there is none (a file only a rejected write names stays
    /// theirs).
    func uploadFolders(_ folders: [UUID], _ database: Database) throws -> [UUID] {
        let writable = try folders.filter { folder in
            if folder == userID { return true }
            return try role(in: folder.lowercasedString, database) != .viewer
        }
        return writable.isEmpty ? [userID] : writable
    }

    /// For each of `names` in `bucket`, the distinct folders of the rows naming it (a deleted
    /// row while its delete is unsent included, as for keeping the copy), the user's own first;
    /// a name no row names is absent. One read of each file column's table for them all.
    func folders(naming names: [String], in bucket: String, _ database: Database) throws -> [String: [UUID]] {
        guard !names.isEmpty else { return [:] }
        var folders: [String: [UUID]] = [:]
        let placeholders = names.map { _ in "?" }.joined(separator: ", ")
        for (table, column) in schema.fileColumns where column.type.bucket == bucket {
            let named = try database.fetchAll(
                """
                SELECT DISTINCT t.\(quoted(column.name)), \(folderExpression(of: table)) FROM \(quoted(table.name)) AS t
                WHERE t.\(quoted(column.name)) IN (\(placeholders)) AND (t.deleted_ms IS NULL OR t._dirty <> \(DirtyState.clean.sql))
                """, names.map(DatabaseValue.text)
            ) { row in (row.text(at: 0) ?? "", row.text(at: 1).flatMap(UUID.init(text:)) ?? userID) }
            for (name, folder) in named where !(folders[name]?.contains(folder) ?? false) { folders[name, default: []].append(folder) }
        }
        return folders.mapValues { found in found.filter { $0 == userID } + found.filter { $0 != userID } }
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
