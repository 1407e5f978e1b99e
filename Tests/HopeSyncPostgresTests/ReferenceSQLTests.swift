import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import Testing

/// Every reference schema's server SQL applies on PostgreSQL 15: its migrations in order, then
/// schema.sql over them; and a row written with no values gets each text default exactly as
/// schema.yaml wrote it (quotes, tabs, carriage returns, `\#`, a bidirectional override).
@Suite struct ReferenceSQLTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("HopeSyncGeneratorTests/References")
    static let cases = (try? FileManager.default.contentsOfDirectory(atPath: root.path).sorted()) ?? []

    @Test(arguments: cases)
    func migrationsAndSchemaApplyAndTextDefaultsRoundTrip(_ name: String) throws {
        let folder = Self.root.appendingPathComponent(name)
        let schema = try SchemaParser.parse(String(contentsOf: folder.appendingPathComponent("schema.yaml"), encoding: .utf8)).schema
        let expected = folder.appendingPathComponent("expected/supabase")
        let connection = try PostgresCluster.createDatabase().connect()
        let migrations = try FileManager.default.contentsOfDirectory(atPath: expected.appendingPathComponent("migrations").path).sorted()
        for file in migrations {
            try connection.execute(script: String(contentsOf: expected.appendingPathComponent("migrations/\(file)"), encoding: .utf8))
        }
        try connection.execute(script: String(contentsOf: expected.appendingPathComponent("schema.sql"), encoding: .utf8))

        for table in schema.tables {
            let id = UUID().uuidString.lowercased()
            var columns = ["id", "user_id"]
            var values: [String?] = [id, UUID().uuidString.lowercased()]
            for column in table.syncedColumns where column.role == .user && !column.isNullable && column.defaultValue == nil {
                columns.append(column.name)
                values.append(Self.someValue(of: column.type))
            }
            if table.conflict == .lww {
                columns += ["updated_ms", "device_id"]
                values += ["1", "d"]
            }
            let placeholders = (1...values.count).map { "$\($0)" }.joined(separator: ", ")
            _ = try connection.execute(
                "insert into public.\(table.name) (\(columns.joined(separator: ", "))) values (\(placeholders))", values)
            for column in table.columns {
                guard case .text(let text)? = column.defaultValue else { continue }
                let stored = try connection.execute("select \(column.name)::text from public.\(table.name) where id = $1", [id]).scalar
                #expect(stored == text, "\(name): \(table.name).\(column.name)")
            }
        }
    }

    /// A value a NOT NULL column without a default takes.
    static func someValue(of type: ColumnType) -> String {
        switch type {
        case .int: "1"
        case .double: "1.5"
        case .bool: "true"
        case .json: "{}"
        case .uuid: UUID().uuidString.lowercased()
        case .file: String(repeating: "a", count: 64) + ".jpg"
        default: "x"
        }
    }
}
