import Foundation
import SyncSchema

/// The pipeline after parsing: snapshot -> checksums -> plan -> render. Pure: it reads the existing tree
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
        if previous == nil {
            let shipped = existing.files.keys.filter(Self.isMigrationPath).sorted()
            if !shipped.isEmpty { throw GeneratorError.missingSnapshot(shipped) }
        }
        let names = NameCheck.problems(in: parsed)
        if !names.isEmpty { throw SchemaError(names) }
        var tree = GeneratedTree()
        let entries = previous?.migrations ?? []
        let problems = try Checksums.shippedProblems(entries, in: existing)
        if !problems.isEmpty { throw GeneratorError.shippedMigrations(problems) }
        for (path, _) in entries.flatMap(\.files) { tree[path] = existing[path] }

        var allEntries = entries
        let supabase = SupabaseRenderer(templates: templates)
        let serverCode = try Checksums.serverCode(of: parsed.schema, renderer: supabase)
        let next = try MigrationPlanner.nextMigration(after: previous, for: parsed, serverCode: serverCode)
        if let next {
            let shippedStamps = entries.map(\.stamp) + existing.files.keys.compactMap(Self.supabaseStamp)
            let stamp = Self.nextStamp(stamp(), after: shippedStamps)
            let sqlite = try SQLiteRenderer(templates: templates).migrationSQL(next)
            let server = try supabase.migrationSQL(next)
            let entry = Snapshot.Entry(next, stamp: stamp, sqlite: sqlite, supabase: server)
            tree[entry.sqlitePath] = sqlite
            tree[entry.supabasePath] = server
            allEntries.append(entry)
        }

        let schema = parsed.schema
        let localMigrations = allEntries.map { ($0.number, $0.name, tree[$0.sqlitePath]!) }
        let columnOrder = ServerColumnOrder(recorded: previous?.serverColumns, allEntries, in: schema)
        let snapshot = Snapshot(
            schema: schema, migrations: allEntries, serverCode: serverCode,
            perOwnerIndexes: Snapshot.perOwnerIndexes(of: schema), serverColumns: columnOrder.recording(schema))
        let templates = templates
        // The outputs are independent: render them side by side (this runs in every build).
        let renders: [@Sendable () throws -> [(String, String)]] = [
            { try SwiftRenderer(templates: templates).files(for: schema, migrations: localMigrations).map { ("swift/" + $0, $1) } },
            { [("rust/tables.rs", try RustRenderer(templates: templates).tablesSource(for: schema, migrations: localMigrations))] },
            { [("supabase/schema.sql", try supabase.schemaSQL(schema, columnOrder: columnOrder))] },
            { [(SupabaseTestRenderer.path, try SupabaseTestRenderer(templates: templates).testsSQL(schema))] },
            { [(Snapshot.fileName, try snapshot.encoded())] },
        ]
        for files in try Self.inParallel(renders, { try $0() }) {
            for (path, text) in files { tree[path] = text }
        }
        let serverNames = PostgresNames.problems(in: tree["supabase/schema.sql"] ?? "", schema: schema, locations: parsed.locations)
        if !serverNames.isEmpty { throw SchemaError(serverNames) }
        return Output(tree: tree, newMigration: next, snapshot: snapshot)
    }

    /// `transform` over `items` on every core, results in the items' order; the first error wins.
    static func inParallel<Item: Sendable, Result: Sendable>(
        _ items: [Item], _ transform: @Sendable (Item) throws -> Result
    ) throws -> [Result] {
        let results = ParallelResults<Result>(count: items.count)
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            results.set(index, Swift.Result { try transform(items[index]) })
        }
        return try results.values()
    }

    /// Files in the migration folders: what shipped, or was put there by hand.
    static func isMigrationPath(_ path: String) -> Bool {
        (path.hasPrefix("sqlite/") || path.hasPrefix("supabase/migrations/")) && path.hasSuffix(".sql")
    }

    /// The stamp of a file in supabase/migrations (`<stamp>_<name>.sql`).
    static func supabaseStamp(_ path: String) -> String? {
        guard path.hasPrefix("supabase/migrations/") else { return nil }
        let stamp = path.dropFirst("supabase/migrations/".count).prefix { $0 != "_" }
        return stamp.count == 14 && stamp.allSatisfy(\.isASCII) && stamp.allSatisfy(\.isNumber) ? String(stamp) : nil
    }

    /// `proposed`, or one second after the latest shipped stamp when it is not later than all
    /// of them: Supabase records applied migrations by stamp and applies them in stamp order, so a
    /// repeated stamp (two runs in one second) or an earlier one (a clock or `SOURCE_DATE_EPOCH`
    /// behind) would be skipped or applied out of order.
    public static func nextStamp(_ proposed: String, after shipped: [String]) -> String {
        guard let latest = shipped.max(), proposed <= latest, let date = stampFormatter().date(from: latest) else { return proposed }
        return stampFormatter().string(from: date.addingTimeInterval(1))
    }

    private static func stampFormatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss"
        return formatter
    }

    /// Now as a Supabase CLI migration stamp; `SOURCE_DATE_EPOCH` fixes it for reproducible runs.
    public static func currentStamp() -> String {
        let environment = ProcessInfo.processInfo.environment
        let date = environment["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:)) ?? Date()
        return stampFormatter().string(from: date)
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

/// Slots for `Generator.inParallel`, filled from several threads.
private final class ParallelResults<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<Value, any Error>?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ result: Result<Value, any Error>) {
        lock.withLock { slots[index] = result }
    }

    func values() throws -> [Value] {
        try lock.withLock { slots }.map { try $0!.get() }
    }
}
