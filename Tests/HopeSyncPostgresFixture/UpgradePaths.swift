import HopeSyncPostgresClient

/// The ways to a server database, which must all end in the catalog that applying every
/// migration makes (column order included): a fresh paste of schema.sql, schema.sql pasted
/// over the first k migrations for every k, and schema.sql pasted over an earlier schema.sql.
/// Every paste must also be quiet (no notices) and idempotent (a second paste changes nothing).
public enum UpgradePaths {
    /// The Supabase migrations of a Generated/ folder's files (path -> text), oldest first.
    public static func migrations(in generated: [String: String]) -> [String] {
        generated.keys.filter { $0.hasPrefix("supabase/migrations/") }.sorted().compactMap { generated[$0] }
    }

    /// One line per way that ends elsewhere, or whose paste is refused, noisy or not idempotent,
    /// for the migrations and schema.sql of a Generated/ folder's files; empty when they all
    /// agree. `earlierSchemaSQL` are schema.sql files of earlier runs, oldest first.
    public static func problems(in generated: [String: String], earlierSchemaSQL: [String] = []) throws -> [String] {
        let migrations = migrations(in: generated)
        guard !migrations.isEmpty, let schemaSQL = generated["supabase/schema.sql"] else { return ["no migrations or no schema.sql"] }
        let migrated = try PostgresCluster.createDatabase().connect()
        for script in migrations { try migrated.execute(script: script) }
        let expected = try Catalog.dump(migrated)
        var ways = (0...migrations.count).map { k in
            (k == 0 ? "a fresh paste" : "migrations 1...\(k), then a paste", Array(migrations.prefix(k)))
        }
        ways += earlierSchemaSQL.enumerated().map { index, earlier in ("earlier schema.sql \(index + 1), then a paste", [earlier]) }
        var problems: [String] = []
        for (way, before) in ways {
            let connection = try PostgresCluster.createDatabase().connect()
            do {
                for script in before { try connection.execute(script: script) }
                _ = connection.takeNotices()
                try connection.execute(script: schemaSQL)
                let pasted = try Catalog.dump(connection)
                try connection.execute(script: schemaSQL)
                let notices = connection.takeNotices()
                if pasted != expected {
                    problems.append("\(way) differs from the migrations:\n\(Catalog.difference(pasted, from: expected))")
                }
                if !notices.isEmpty { problems.append("\(way): the paste is not quiet: \(notices)") }
                if try Catalog.dump(connection) != pasted { problems.append("\(way): a second paste changed the catalog") }
            } catch {
                problems.append("\(way): PostgreSQL refused it: \(error)")
            }
        }
        return problems
    }
}
