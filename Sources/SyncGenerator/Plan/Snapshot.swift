import Foundation
import SyncSchema

/// `Generated/schema.snapshot.json`: the schema as of the newest migration and what every
/// shipped migration was, with a checksum of each file (atlas.sum's idea), so the next run can
/// diff without a database and can tell a migration edited by hand.
public struct Snapshot: Codable, Equatable, Sendable {
    public static let fileName = "schema.snapshot.json"
    public static let currentFormat = 1

    public var format: Int
    public var schema: Schema
    public var migrations: [Entry]

    public struct Entry: Codable, Equatable, Sendable {
        public var number: Int
        public var name: String
        /// The Supabase CLI version prefix (UTC yyyyMMddHHmmss), fixed when the migration is made.
        public var stamp: String
        public var steps: [MigrationStep]
        public var sqliteSHA256: String
        public var supabaseSHA256: String
    }

    public init(schema: Schema, migrations: [Entry]) {
        self.format = Self.currentFormat
        self.schema = schema
        self.migrations = migrations
    }

    /// The migrations as the renderers and `verify` see them, each with its schema after it.
    public var plannedMigrations: [Migration] {
        var schema = Schema(tables: [])
        return migrations.map { entry in
            for step in entry.steps { schema.apply(step) }
            return Migration(number: entry.number, name: entry.name, steps: entry.steps, schema: schema)
        }
    }

    public func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    public static func decode(_ text: String) throws -> Snapshot {
        try JSONDecoder().decode(Snapshot.self, from: Data(text.utf8))
    }
}

extension Schema {
    /// Replays one step; every step carries the table as it is after the step.
    mutating func apply(_ step: MigrationStep) {
        switch step {
        case .createTable(let table):
            tables.append(table)
        case .addColumn(_, let table), .addIndex(_, let table), .replaceTriggers(let table):
            if let index = tables.firstIndex(where: { $0.name == table.name }) { tables[index] = table }
        }
    }
}

/// The file names of a migration in both layouts.
extension Migration {
    public var sqlitePath: String { "sqlite/\(fileStem).sql" }

    public func supabasePath(stamp: String) -> String { "supabase/migrations/\(stamp)_\(fileStem).sql" }
}

extension Snapshot.Entry {
    var fileStem: String { Migration(number: number, name: name, steps: [], schema: Schema(tables: [])).fileStem }
    var sqlitePath: String { "sqlite/\(fileStem).sql" }
    var supabasePath: String { "supabase/migrations/\(stamp)_\(fileStem).sql" }
}
