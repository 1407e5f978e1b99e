import Foundation
import HopeSyncLocking

/// A pass's announcements of its own pushes, for a poke source that announces writes and is
/// connected as the pass starts (``PokeSource/announcesWrites``): each push asks the server to
/// skip its poke, and once the server took the rows the source announces them to the user's
/// other devices. After an announcement that could not go out (the channel dropped meanwhile),
/// the pass's later pushes leave the poke to the server again.
final class PushAnnouncer: Sendable {
    private let source: any PokeSource
    private let userID: UUID
    private let announcing = Locked(true)

    init(_ source: any PokeSource, for userID: UUID) {
        self.source = source
        self.userID = userID
    }

    /// Whether the next push asks the server to skip its poke.
    var isAnnouncing: Bool { announcing.value }

    /// The rows of `table` the server took (as it answered them): their poke, from here.
    func announce(_ rows: [ColumnValues], of table: TableSchema) {
        guard !rows.isEmpty else { return }
        if !source.announce(.poke(table: table.name, serverSeq: rows.highestServerSeq), for: userID) { announcing.value = false }
    }
}
