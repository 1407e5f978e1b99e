import Foundation

/// Compares the generated tree with Generated/ on disk, then writes the difference (all or
/// nothing, only files whose bytes change) or reports it (`--check`).
public struct OutputWriter: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// What differs between disk and the generated tree.
    public struct Changes: Equatable, Sendable {
        public var added: [String] = []
        public var modified: [String] = []
        /// Files generate owns (Swift and Rust output) that it no longer makes.
        public var removed: [String] = []
        /// Files in the migration folders that no snapshot entry names: never touched.
        public var foreign: [String] = []

        public var isEmpty: Bool { added.isEmpty && modified.isEmpty && removed.isEmpty }
    }

    public func changes(from existing: GeneratedTree, to generated: GeneratedTree) -> Changes {
        var changes = Changes()
        for path in generated.files.keys.sorted() {
            guard let old = existing[path] else {
                changes.added.append(path)
                continue
            }
            if old != generated[path] { changes.modified.append(path) }
        }
        for path in existing.files.keys.sorted() where generated[path] == nil {
            if path.hasPrefix("swift/") || path.hasPrefix("rust/") {
                changes.removed.append(path)
            } else if path.hasPrefix("sqlite/") || path.hasPrefix("supabase/migrations/") {
                changes.foreign.append(path)
            }
        }
        return changes
    }

    /// The `--check` report: each stale file with a short unified diff.
    public func report(_ changes: Changes, existing: GeneratedTree, generated: GeneratedTree) -> String {
        var sections: [String] = []
        for path in changes.added { sections.append("missing: Generated/\(path)") }
        for path in changes.modified {
            sections.append("stale: Generated/\(path)\n" + UnifiedDiff.render(old: existing[path]!, new: generated[path]!, path: path))
        }
        for path in changes.removed { sections.append("no longer generated: Generated/\(path)") }
        return sections.joined(separator: "\n")
    }

    /// Writes every added or modified file and removes the ones no longer generated. Each file
    /// is first written beside its target; only when all are written are they moved into
    /// place, so a failure leaves Generated/ as it was.
    public func write(_ changes: Changes, generated: GeneratedTree) throws {
        let manager = FileManager.default
        var staged: [(temporary: URL, target: URL)] = []
        do {
            for path in changes.added + changes.modified {
                let target = directory.appendingPathComponent(path)
                try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).generate-tmp")
                try Data(generated[path]!.utf8).write(to: temporary)
                staged.append((temporary, target))
            }
        } catch {
            for file in staged { try? manager.removeItem(at: file.temporary) }
            throw error
        }
        for file in staged {
            _ = try? manager.removeItem(at: file.target)
            try manager.moveItem(at: file.temporary, to: file.target)
        }
        for path in changes.removed {
            try manager.removeItem(at: directory.appendingPathComponent(path))
        }
    }
}
