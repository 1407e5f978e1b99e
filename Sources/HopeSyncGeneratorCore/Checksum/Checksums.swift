import HopeSyncSchema

/// Checksums of rendered text: the plan stage checks the shipped files against theirs and
/// hands the server code's to ``MigrationPlanner`` as plain values (which never renders), and
/// the snapshot keeps them, so the next run can tell a shipped migration edited by hand and a
/// table whose server code renders differently now.
enum Checksums {
    /// Per table, the SHA-256 of its server functions and triggers (a scope's membership
    /// table's with them), and of its file columns' buckets with their Storage policies, as the
    /// templates render them (what `MigrationPlanner` compares with the snapshot's `serverCode`).
    static func serverCode(of schema: Schema, renderer: SupabaseRenderer) throws -> [String: String] {
        var checksums: [String: String] = [:]
        for table in schema.tables {
            let buckets = try SupabaseRenderer.buckets(of: table).map { try renderer.bucketSQL($0, in: schema) }
            checksums[table.name] = SHA256.hex(
                ([try renderer.replacedServerCodeSQL(table, in: schema)] + buckets).joined(separator: "\n"))
        }
        return checksums
    }

    /// The SHA-256 of what every table shares, as the templates render it for `schema` (what
    /// `MigrationPlanner` compares with the snapshot's `sharedServerCode`).
    static func sharedServerCode(of schema: Schema, renderer: SupabaseRenderer) throws -> String {
        SHA256.hex(try renderer.sharedSQL(schema))
    }

    /// The shipped migration files of `entries` that are missing from `existing` or differ
    /// from the checksum recorded when they were made.
    static func shippedProblems(_ entries: [Snapshot.Entry], in existing: GeneratedTree) throws -> [GeneratorError.ShippedMigration] {
        try Parallel.map(entries.flatMap(\.files)) { path, checksum -> GeneratorError.ShippedMigration? in
            guard let text = existing[path] else { return .init(path: path, problem: .missing) }
            return SHA256.hex(text) == checksum ? nil : .init(path: path, problem: .edited)
        }.compactMap { $0 }
    }
}

extension Snapshot.Entry {
    /// The record of a new migration, with the checksums of its two rendered files.
    init(_ migration: Migration, stamp: String, sqlite: String, supabase: String) {
        self.init(
            number: migration.number, name: migration.name, stamp: stamp, changes: migration.recordedChanges,
            sqliteSHA256: SHA256.hex(sqlite), supabaseSHA256: SHA256.hex(supabase))
    }

    /// Its two files with the checksum each had when it was made.
    var files: [(path: String, checksum: String)] {
        [(sqlitePath, sqliteSHA256), (supabasePath, supabaseSHA256)]
    }
}
