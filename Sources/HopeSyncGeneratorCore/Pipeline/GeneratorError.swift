/// Why a run wrote nothing: what shipped before is missing, unreadable or edited.
public enum GeneratorError: Error, Equatable, CustomStringConvertible {
    public struct ShippedMigration: Equatable, Sendable {
        public enum Problem: Equatable, Sendable { case edited, missing }
        public var path: String
        public var problem: Problem
    }

    case unreadableSnapshot(String)
    case shippedMigrations([ShippedMigration])
    /// No snapshot, but migrations on disk: planning from nothing would re-create them.
    case missingSnapshot([String])

    public var description: String {
        switch self {
        case .unreadableSnapshot(let reason):
            return "error: Generated/\(Snapshot.fileName) cannot be read (\(reason)); restore it from version control"
        case .missingSnapshot(let paths):
            let listed =
                paths.prefix(3).map { "Generated/\($0)" }.joined(separator: ", ") + (paths.count > 3 ? " and \(paths.count - 3) more" : "")
            return
                "error: Generated/\(Snapshot.fileName) is missing, but Generated/ holds migrations (\(listed)); without it generate would plan every table again as a new first migration, which devices and databases that ran the shipped ones cannot apply. Restore it from version control (`git checkout -- Generated/\(Snapshot.fileName)`); nothing was written"
        case .shippedMigrations(let problems):
            return problems.map { item in
                switch item.problem {
                case .edited:
                    "error: shipped migration Generated/\(item.path) was edited by hand (its checksum no longer matches); restore it from version control: devices and databases already ran it, so a change belongs in a new migration"
                case .missing:
                    "error: shipped migration Generated/\(item.path) is missing; restore it from version control"
                }
            }.joined(separator: "\n")
        }
    }
}
