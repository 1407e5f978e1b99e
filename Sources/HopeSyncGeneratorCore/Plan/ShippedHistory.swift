import HopeSyncSchema

/// What shipped before this run: Generated/ as it is on disk, and its snapshot, the record of
/// every migration made so far.
package struct ShippedHistory: Sendable {
    package var snapshot: Snapshot?
    package var files: GeneratedTree

    /// The migrations the snapshot records, oldest first.
    package var migrations: [Snapshot.Entry] { snapshot?.migrations ?? [] }

    /// Files in the migration folders: what shipped, or was put there by hand.
    package static func isMigrationPath(_ path: String) -> Bool {
        (path.hasPrefix("sqlite/") || path.hasPrefix("supabase/migrations/")) && path.hasSuffix(".sql")
    }

    /// The stamps of the files in supabase/migrations (`<stamp>_<name>.sql`).
    var supabaseStamps: [String] {
        files.files.keys.compactMap { path in
            guard path.hasPrefix("supabase/migrations/") else { return nil }
            let stamp = path.dropFirst("supabase/migrations/".count).prefix { $0 != "_" }
            return stamp.count == 14 && stamp.allSatisfy(\.isASCII) && stamp.allSatisfy(\.isNumber) ? String(stamp) : nil
        }
    }
}

/// Reads the history from the tree on disk: the snapshot, refused when it cannot be read or
/// when migrations shipped without it (planning from nothing would make them again).
package struct ReadHistoryStage: PipelineStage {
    package init() {}

    package func run(_ existing: GeneratedTree) throws(GeneratorError) -> ShippedHistory {
        let snapshot = try existing[Snapshot.fileName].map { text throws(GeneratorError) in
            do { return try Snapshot.decode(text) } catch { throw GeneratorError.unreadableSnapshot(String(describing: error)) }
        }
        if snapshot == nil {
            let shipped = existing.files.keys.filter(ShippedHistory.isMigrationPath).sorted()
            if !shipped.isEmpty { throw GeneratorError.missingSnapshot(shipped) }
        }
        return ShippedHistory(snapshot: snapshot, files: existing)
    }
}
