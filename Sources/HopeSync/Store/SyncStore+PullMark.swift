import Foundation
import HopeSyncSQLite

/// The user's mark as of the last pull that applied every page of every table (see
/// ``PulledTables/mark``), kept with the tables it was for: a schema that gained a table or a
/// column pulls in full again.
extension SyncStore {
    private static let pullMarkKey = "pull_mark"

    /// The mark to send as `since`, or nil when there is none for this schema's tables.
    func pullMark() throws(SyncError) -> Int64? {
        let stored = try withWriter { database in
            try database.fetchOne("SELECT value FROM _sync_meta WHERE key = ?", [.text(Self.pullMarkKey)]) { $0.text(at: 0) } ?? nil
        }
        guard let parts = stored?.split(separator: " ", maxSplits: 1), parts.count == 2, String(parts[1]) == markedTables else {
            return nil
        }
        return Int64(parts[0])
    }

    /// Keeps `mark` for the next pass.
    func savePullMark(_ mark: Int64) throws(SyncError) {
        try withWriter { database in
            try database.execute(
                "INSERT OR REPLACE INTO _sync_meta (key, value) VALUES (?, ?)", [.text(Self.pullMarkKey), .text("\(mark) \(markedTables)")])
        }
    }

    /// Forgets the mark (the rows it vouched for are gone): the next pass pulls in full.
    static func forgetPullMark(_ database: Database) throws {
        try database.execute("DELETE FROM _sync_meta WHERE key = ?", [.text(pullMarkKey)])
    }

    /// The tables and columns a mark was kept for.
    private var markedTables: String {
        schema.tables.map { "\($0.name)(\($0.columnNames.joined(separator: ",")))" }.joined(separator: ";")
    }
}
