import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import HopeSyncSQLite
import Testing

/// The generated local migrations, applied in order to a real SQLite database, give exactly
/// the tables the generated table list describes.
@Suite struct SQLiteMigrationTests {
    struct ColumnInfo: Equatable, CustomStringConvertible {
        var name: String
        var type: String
        var notNull: Bool
        var isPrimaryKey: Bool
        var description: String { "\(name) \(type)\(notNull ? " NOT NULL" : "")\(isPrimaryKey ? " PK" : "")" }
    }

    @Test func migrationsGiveTheTablesTheTableListDescribes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hope-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try Database(path: path)
        for migration in GeneratedSchema.migrations.sorted(by: { $0.version < $1.version }) {
            try database.inTransaction { try database.execute(migration.sql) }
        }
        let tables = try database.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.text(at: 0)! }
        #expect(Set(tables) == Set(GeneratedSchema.tables.map(\.name) + ["_sync_cursors"]))

        for table in GeneratedSchema.tables {
            let actual = try database.fetchAll("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)", [.text(table.name)]) { row in
                ColumnInfo(
                    name: row.text(at: 0)!, type: row.text(at: 1)!, notNull: row.int64(at: 2) == 1, isPrimaryKey: row.int64(at: 3) == 1)
            }
            var expected = table.columns.map { column in
                ColumnInfo(
                    name: column.name,
                    type: sqliteType(column.type),
                    // The device holds the version column NULL until the server stamps it.
                    notNull: !column.isNullable && column.role != .version,
                    isPrimaryKey: column.name == table.primaryKey
                )
            }
            expected.append(ColumnInfo(name: "_dirty", type: "INTEGER", notNull: true, isPrimaryKey: false))
            #expect(actual.sorted { $0.name < $1.name } == expected.sorted { $0.name < $1.name }, "\(table.name)")
        }
    }

    private func sqliteType(_ kind: ColumnType) -> String {
        switch kind {
        case .text, .uuid, .timestamp, .json, .enumeration, .file: "TEXT"
        case .int, .bool: "INTEGER"
        case .double: "REAL"
        case .bytes: "BLOB"
        }
    }
}
