import HopeSyncSQLite

/// The bounds of the conflicted and rejected lists: the newest 100 entries of every user
/// together, within 512 K characters; a body over 16 K characters is not kept (the entry can
/// then not be resent as made); texts are kept to 4 K characters. When a list is full the
/// oldest entries go.
enum ListBounds {
    static let maxEntries = 100
    static let maxCharacters = 512 * 1_024
    static let maxBodyCharacters = 16 * 1_024
    static let maxTextCharacters = 4 * 1_024

    /// The body as kept: nil when it is too long.
    static func keptBody(_ body: String?) -> String? {
        guard let body, body.count <= maxBodyCharacters else { return nil }
        return body
    }

    static func clipped(_ text: String) -> String {
        text.count <= maxTextCharacters ? text : String(text.prefix(maxTextCharacters))
    }

    static func clipped(_ text: String?) -> String? {
        text.map(clipped)
    }

    /// Drops the oldest entries of `table` beyond the bounds; `textColumns` are what its
    /// characters are counted over.
    static func enforce(on table: String, textColumns: [String], _ database: Database) throws {
        try database.execute(
            "DELETE FROM \(table) WHERE id NOT IN (SELECT id FROM \(table) ORDER BY id DESC LIMIT \(maxEntries))"
        )
        let size = textColumns.map { "coalesce(length(\($0)), 0)" }.joined(separator: " + ")
        let entries = try database.fetchAll("SELECT id, \(size) FROM \(table) ORDER BY id DESC") {
            ($0.int64(at: 0), $0.int64(at: 1))
        }
        var total: Int64 = 0
        for (id, characters) in entries {
            total += characters
            if total > maxCharacters {
                try database.execute("DELETE FROM \(table) WHERE id <= ?", [.integer(id)])
                return
            }
        }
    }
}
