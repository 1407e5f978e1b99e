import Foundation
import SyncSchema

/// The pipeline after parsing: snapshot -> plan -> render. Pure: it reads the existing tree
/// it is given and returns the tree that should exist; ``OutputWriter`` writes or checks it.
public struct Generator: Sendable {
    public let templates: TemplateSet
    /// The Supabase CLI stamp for a new migration (UTC yyyyMMddHHmmss).
    public let stamp: @Sendable () -> String

    public init(templates: TemplateSet, stamp: @escaping @Sendable () -> String = Generator.currentStamp) {
        self.templates = templates
        self.stamp = stamp
    }

    public struct Output: Sendable {
        public var tree: GeneratedTree
        /// The migration this run adds, if schema.yaml changed.
        public var newMigration: Migration?
        public var snapshot: Snapshot
    }

    public func generate(_ parsed: ParsedSchema, existing: GeneratedTree) throws -> Output {
        let previous = try existing[Snapshot.fileName].map { text in
            do { return try Snapshot.decode(text) } catch { throw GeneratorError.unreadableSnapshot(String(describing: error)) }
        }
        var tree = GeneratedTree()
        var entries: [Snapshot.Entry] = []
        var problems: [GeneratorError.ShippedMigration] = []
        for entry in previous?.migrations ?? [] {
            for (path, checksum) in [(entry.sqlitePath, entry.sqliteSHA256), (entry.supabasePath, entry.supabaseSHA256)] {
                guard let text = existing[path] else {
                    problems.append(.init(path: path, problem: .missing))
                    continue
                }
                if SHA256.hex(text) != checksum { problems.append(.init(path: path, problem: .edited)) }
                tree[path] = text
            }
            entries.append(entry)
        }
        if !problems.isEmpty { throw GeneratorError.shippedMigrations(problems) }

        let next = try MigrationPlanner.nextMigration(after: previous, for: parsed)
        if let next {
            let stamp = stamp()
            let sqlite = try SQLiteRenderer(templates: templates).migrationSQL(next)
            let supabase = try SupabaseRenderer(templates: templates).migrationSQL(next)
            let entry = Snapshot.Entry(
                number: next.number, name: next.name, stamp: stamp, changes: next.steps.map(\.change),
                sqliteSHA256: SHA256.hex(sqlite), supabaseSHA256: SHA256.hex(supabase)
            )
            tree[entry.sqlitePath] = sqlite
            tree[entry.supabasePath] = supabase
            entries.append(entry)
        }

        let schema = parsed.schema
        let localMigrations = entries.map { ($0.number, $0.name, tree[$0.sqlitePath]!) }
        for (name, text) in try SwiftRenderer(templates: templates).files(for: schema, migrations: localMigrations) {
            tree["swift/" + name] = text
        }
        tree["rust/tables.rs"] = try RustRenderer(templates: templates).tablesSource(for: schema, migrations: localMigrations)
        tree["supabase/schema.sql"] = try SupabaseRenderer(templates: templates).schemaSQL(schema)
        let snapshot = Snapshot(schema: schema, migrations: entries)
        tree[Snapshot.fileName] = try snapshot.encoded()
        return Output(tree: tree, newMigration: next, snapshot: snapshot)
    }

    /// Now as a Supabase CLI migration stamp; `SOURCE_DATE_EPOCH` fixes it for reproducible runs.
    public static func currentStamp() -> String {
        let environment = ProcessInfo.processInfo.environment
        let date = environment["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:)) ?? Date()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter.string(from: date)
    }
}

public enum GeneratorError: Error, Equatable, CustomStringConvertible {
    public struct ShippedMigration: Equatable, Sendable {
        public enum Problem: Equatable, Sendable { case edited, missing }
        public var path: String
        public var problem: Problem
    }

    case unreadableSnapshot(String)
    case shippedMigrations([ShippedMigration])

    public var description: String {
        switch self {
        case .unreadableSnapshot(let reason):
            return "error: Generated/\(Snapshot.fileName) cannot be read (\(reason)); restore it from version control"
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
