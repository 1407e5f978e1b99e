import Foundation
import HopeSyncSchema

/// `Generated/schema.snapshot.json`: the schema as of the newest migration and what every
/// shipped migration was, with a checksum of each file (atlas.sum's idea), so the next run can
/// diff without a database and can tell a migration edited by hand.
package struct Snapshot: Codable, Equatable, Sendable {
    package static let fileName = "schema.snapshot.json"
    package static let currentFormat = 1

    package var format: Int
    package var schema: Schema
    package var migrations: [Entry]
    /// Per table, the SHA-256 of its server functions and triggers as the templates render them.
    /// When a new version of hope-sync or an edited template renders them differently, the next
    /// migration re-creates them, so a server never runs older trigger code than the clients
    /// expect. Absent in snapshots written before it existed.
    package var serverCode: [String: String]?
    /// The SHA-256 of what every table shares (the sequence's functions, the marks, the pull
    /// function) as the templates render it. When it renders differently, the next migration
    /// re-creates it. Absent in snapshots written before it: their projects get it re-created.
    package var sharedServerCode: String?
    /// The unique indexes (`table.index`) the server holds unique per owner. Snapshots written
    /// before unique indexes were per owner lack it: their shipped unique indexes are unique
    /// across all owners on the server, and the next migration replaces them. Absent when the
    /// schema has no unique index, so such projects' snapshots did not change.
    package var perOwnerIndexes: [String]?
    /// Per table, its columns in the order the server holds them (``ServerColumnOrder``).
    /// Absent in snapshots written before it: the order is then worked out from `migrations`.
    package var serverColumns: [String: [String]]?

    package struct Entry: Codable, Equatable, Sendable {
        package var number: Int
        package var name: String
        /// The Supabase CLI version prefix (UTC yyyyMMddHHmmss), fixed when the migration is made.
        package var stamp: String
        /// What it introduced, by name: `table t`, `column t.c`, `index t.i`, `triggers t`.
        package var changes: [String]
        package var sqliteSHA256: String
        package var supabaseSHA256: String
    }

    package init(
        schema: Schema, migrations: [Entry], serverCode: [String: String]? = nil, perOwnerIndexes: [String]? = nil,
        serverColumns: [String: [String]]? = nil, sharedServerCode: String? = nil
    ) {
        self.format = Self.currentFormat
        self.schema = schema
        self.migrations = migrations
        self.serverCode = serverCode
        self.perOwnerIndexes = perOwnerIndexes
        self.serverColumns = serverColumns
        self.sharedServerCode = sharedServerCode
    }

    /// Every unique index of `schema` as `perOwnerIndexes` records it, nil when there is none:
    /// after any run all of them are per owner on the server (made so, or replaced).
    package static func perOwnerIndexes(of schema: Schema) -> [String]? {
        let names = schema.tables.flatMap { table in table.indexes.filter(\.isUnique).map { "\(table.name).\($0.name)" } }
        return names.isEmpty ? nil : names.sorted()
    }

    package func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    package static func decode(_ text: String) throws -> Snapshot {
        try JSONDecoder().decode(Snapshot.self, from: Data(text.utf8))
    }
}

extension Snapshot.Entry {
    package var fileStem: String { Migration.fileStem(number: number, name: name) }
    /// Its recorded changes read back against `schema`, the snapshot's or a later one.
    package func schemaChanges(in schema: Schema) -> [SchemaChange] {
        changes.compactMap { SchemaChange(recorded: $0, in: schema) }
    }
    var sqlitePath: String { "sqlite/\(fileStem).sql" }
    var supabasePath: String { "supabase/migrations/\(stamp)_\(fileStem).sql" }
}
