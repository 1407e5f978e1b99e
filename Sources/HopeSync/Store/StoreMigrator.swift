import Foundation
import HopeSyncModel
import HopeSyncSQLite

/// Brings a database up to the app's generated migrations and the runtime's own bookkeeping
/// tables, each migration in its own transaction, recorded in `_sync_schema_migrations`.
struct StoreMigrator {
    enum Domain: String {
        case runtime, app
    }

    let appMigrations: [LocalMigration]
    /// The app's synced tables, watched for columns an upgrade adds.
    let syncedTables: [String]
    let nowMs: Int64

    func migrate(_ database: Database) throws {
        let applied = try appliedVersions(database)
        try refuseNewer(applied[.runtime], known: RuntimeMigrations.all, what: "sync runtime")
        try refuseNewer(applied[.app], known: appMigrations, what: "app schema")
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS _sync_schema_migrations (
                domain TEXT NOT NULL,
                version INTEGER NOT NULL,
                name TEXT NOT NULL,
                applied_ms INTEGER NOT NULL,
                PRIMARY KEY (domain, version)
            )
            """)
        // App tables first: the runtime's migrations may refer to `_sync_cursors`. Only an
        // upgrade of a database already in use is watched for columns it adds.
        let upgrading = applied[.app].map { version in appMigrations.contains { $0.version > version } } ?? false
        let before = upgrading ? try columns(of: syncedTables, database) : [:]
        if upgrading { try recordOwnNewestStamp(database) }
        try apply(appMigrations, domain: .app, after: applied[.app] ?? 0, to: database)
        try apply(RuntimeMigrations.all, domain: .runtime, after: applied[.runtime] ?? 0, to: database)
        // Renamed and dropped columns (decision 0052): the bookkeeping follows, and a renamed
        // column is no column the table gained.
        let changes = try ColumnChange.pending(database)
        try database.inTransaction {
            for change in changes { try change.apply(database) }
            for table in Set(changes.filter { $0.new == nil && !$0.old.isEmpty }.map(\.table)) where syncedTables.contains(table) {
                try settlePairs(of: table, database)
            }
        }
        guard upgrading else { return }
        for (table, columns) in try columns(of: syncedTables, database) {
            guard var old = before[table], !old.isEmpty else { continue }
            var retyped: Set<String> = []
            for change in changes where change.table == table {
                guard let new = change.new, let type = old.removeValue(forKey: change.old) else { continue }
                old[new] = type
                if columns[new] != type { retyped.insert(new) }
            }
            let added = Set(columns.keys).subtracting(old.keys)
            guard !added.isEmpty || !retyped.isEmpty else { continue }
            try markForRepull(table, added: added, retyped: retyped, holdsStamps: columns[ReservedColumn.columnStamps] != nil, database)
        }
    }

    /// The clock resumes from the rows' stamps (SyncStore.loadMeta), and an update may drop what
    /// held this device's newest (a deprecated column or table): it is recorded first, or the
    /// next writes would take stamps again that the server holds for other writes. A row's pair
    /// or any column's stamp counts (another device's later edit of a row leaves this device's
    /// stamp on the columns it did not touch, and the server keeps them).
    private func recordOwnNewestStamp(_ database: Database) throws {
        let tables = try database.fetchAll(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND substr(name, 1, 6) != '_sync_'"
        ) { $0.text(at: 0) ?? "" }
        var newest: Int64 = 0
        for (table, columns) in try columns(of: tables, database) {
            guard columns[ReservedColumn.updatedMs] != nil, columns[ReservedColumn.deviceId] != nil else { continue }
            var own = ["SELECT max(updated_ms) FROM \(quoted(table)) WHERE device_id = \(Self.ownDevice)"]
            if columns[ReservedColumn.columnStamps] != nil {
                own.append(
                    """
                    SELECT \(Self.stampMs("max(stamp.value)")) FROM \(quoted(table)), json_each(column_stamps) AS stamp
                    WHERE json_valid(column_stamps) AND \(Self.stampDevice("stamp.value")) = \(Self.ownDevice)
                    """)
            }
            for sql in own {
                newest = max(newest, try database.fetchOne(sql) { $0.int64(at: 0) } ?? 0)
            }
        }
        try SyncStore.recordClock(atLeast: newest, database)
    }

    /// A dropped column's stamp left its rows (the migration removed it): each row's pair
    /// (updated_ms, device_id) is again its newest remaining stamp, as a merge leaves every row.
    /// Otherwise a row whose newest write was of that column keeps a pair no stamp has, and a
    /// dirty one is pushed at every pass and never settles (the server takes nothing from it).
    private func settlePairs(of table: String, _ database: Database) throws {
        guard try columns(of: [table], database)[table]?[ReservedColumn.columnStamps] != nil else { return }
        // A stamp's text orders as its pair.
        let newest = "(SELECT max(value) FROM json_each(column_stamps))"
        try database.execute(
            """
            UPDATE \(quoted(table)) SET updated_ms = \(Self.stampMs(newest)), device_id = \(Self.stampDevice(newest))
            WHERE json_valid(column_stamps) AND \(newest) IS NOT NULL
            """)
    }

    /// SQL of a stamp's parts (``WriteStamp/text``: 15 digits of milliseconds, a colon, the
    /// writer's device id), from SQL giving its text.
    private static func stampMs(_ stamp: String) -> String { "CAST(substr(\(stamp), 1, 15) AS INTEGER)" }
    private static func stampDevice(_ stamp: String) -> String { "substr(\(stamp), 17)" }
    /// SQL of this device's id, as the store keeps it.
    private static let ownDevice = "(SELECT value FROM _sync_meta WHERE key = 'device_id')"

    /// The `_sync_meta` key of a table to pull again from the start.
    static func repullKey(_ table: String) -> String { "repull:" + table }

    /// An upgrade that adds columns to a table the device already synced: the rows it holds
    /// have no values for them yet, so the table is pulled again from the start (a version
    /// or whole-row table's rows apply again once their server_seq is forgotten) before any of
    /// its writes goes out. A retyped column is pulled again too: what this build converted
    /// (SQLite's CAST) is the old build's copy, which the server's `back` may have lost (text
    /// an int cannot hold); the server's value under another device's stamp replaces it, while
    /// this device's own writes, which the server converted with `to` as CAST does, keep theirs.
    private func markForRepull(_ table: String, added: Set<String>, retyped: Set<String>, holdsStamps: Bool, _ database: Database) throws {
        try database.inTransaction {
            try database.execute("DELETE FROM _sync_cursors WHERE table_name = ?", [.text(table)])
            try database.execute("UPDATE \(quoted(table)) SET server_seq = NULL")
            try database.execute("INSERT OR REPLACE INTO _sync_meta (key, value) VALUES (?, '1')", [.text(Self.repullKey(table))])
            guard holdsStamps else { return }
            // Stamps pulled before this build knew the columns stamp values it could not keep.
            if !added.isEmpty {
                let paths = added.sorted().map { "'$.\($0)'" }.joined(separator: ", ")
                try database.execute(
                    "UPDATE \(quoted(table)) SET column_stamps = json_remove(column_stamps, \(paths)) WHERE column_stamps IS NOT NULL")
            }
            for column in retyped.sorted() {
                let writer = Self.stampDevice("json_extract(column_stamps, '$.\(column)')")
                try database.execute(
                    """
                    UPDATE \(quoted(table)) SET column_stamps = json_remove(column_stamps, '$.\(column)')
                    WHERE \(writer) IS NOT \(Self.ownDevice)
                    """)
            }
        }
    }

    /// Each table's columns and their declared types.
    private func columns(of tables: [String], _ database: Database) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for table in tables {
            let columns = try database.fetchAll("SELECT name, type FROM pragma_table_info(?)", [.text(table)]) {
                ($0.text(at: 0) ?? "", $0.text(at: 1) ?? "")
            }
            result[table] = Dictionary(columns, uniquingKeysWith: { first, _ in first })
        }
        return result
    }

    private func appliedVersions(_ database: Database) throws -> [Domain: Int] {
        let exists =
            try database.fetchOne(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sync_schema_migrations'"
            ) { _ in true } ?? false
        guard exists else { return [:] }
        let rows = try database.fetchAll("SELECT domain, max(version) FROM _sync_schema_migrations GROUP BY domain") {
            ($0.text(at: 0) ?? "", Int($0.int64(at: 1)))
        }
        var result: [Domain: Int] = [:]
        for (name, version) in rows {
            if let domain = Domain(rawValue: name) { result[domain] = version }
        }
        return result
    }

    private func refuseNewer(_ applied: Int?, known: [LocalMigration], what: String) throws {
        let newestKnown = known.map(\.version).max() ?? 0
        if let applied, applied > newestKnown {
            throw SyncError(
                .configuration,
                """
                This database was migrated by a newer \(what) (version \(applied)) than this build knows \
                (version \(newestKnown)); it was left unchanged. Update the app, or open another file.
                """)
        }
    }

    private func apply(_ migrations: [LocalMigration], domain: Domain, after version: Int, to database: Database) throws {
        for migration in migrations.sorted(by: { $0.version < $1.version }) where migration.version > version {
            try database.inTransaction {
                try database.execute(migration.sql)
                try database.execute(
                    "INSERT INTO _sync_schema_migrations (domain, version, name, applied_ms) VALUES (?, ?, ?, ?)",
                    [.text(domain.rawValue), .integer(Int64(migration.version)), .text(migration.name), .integer(nowMs)]
                )
            }
        }
    }
}
