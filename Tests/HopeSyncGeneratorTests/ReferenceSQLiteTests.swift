import Foundation
import HopeSyncSQLite
import HopeSyncSchema
import Testing

/// Every reference schema's local migrations apply to SQLite in order, and a row written with
/// only an id gets each text default exactly as schema.yaml wrote it.
@Suite struct ReferenceSQLiteTests {
    @Test(arguments: ReferenceTests.cases)
    func migrationsApplyAndTextDefaultsRoundTrip(_ name: String) throws {
        let folder = ReferenceTests.root.appendingPathComponent(name)
        let schema = try parse(String(contentsOf: folder.appendingPathComponent("schema.yaml"), encoding: .utf8)).schema
        try Self.applyAndCompareDefaults(schema, sqlite: folder.appendingPathComponent("expected/sqlite"), name: name)
    }

    static func applyAndCompareDefaults(_ schema: Schema, sqlite: URL, name: String) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hope-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try Database(path: path)
        for file in try FileManager.default.contentsOfDirectory(atPath: sqlite.path).sorted() {
            let sql = try String(contentsOf: sqlite.appendingPathComponent(file), encoding: .utf8)
            try database.inTransaction { try database.execute(sql) }
        }
        for table in schema.tables {
            let required = table.syncedColumns.filter { $0.role != .id && !$0.isNullable && $0.defaultValue == nil && $0.role != .version }
            let names = ["id"] + required.map(\.name)
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            let values: [DatabaseValue] =
                [.text("row")] + required.map { $0.type == .text || $0.type == .timestamp || $0.type == .uuid ? .text("x") : .integer(1) }
            try database.execute("INSERT INTO \(table.name) (\(names.joined(separator: ", "))) VALUES (\(placeholders))", values)
            for column in table.columns {
                guard case .text(let text)? = column.defaultValue else { continue }
                let stored = try database.fetchOne("SELECT \(column.name) FROM \(table.name) WHERE id = 'row'") { $0.text(at: 0) }
                #expect(stored == text, "\(name): \(table.name).\(column.name)")
            }
        }
    }
}
