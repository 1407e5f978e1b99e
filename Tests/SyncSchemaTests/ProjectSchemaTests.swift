import Foundation
import Testing
@testable import SyncSchema

/// The project's own schema.yaml is the richest schema there is: every feature the generator
/// must handle appears in it, so its exact model is pinned here.
@Suite struct ProjectSchemaTests {
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("schema.yaml")

    static func parse() throws -> ParsedSchema {
        try SchemaParser.parse(String(contentsOf: url, encoding: .utf8))
    }

    @Test func parsesToTheExpectedModel() throws {
        let expected = Schema(tables: [
            Table(
                name: "activities",
                columns: [
                    Column(name: "name", type: .text),
                    Column(name: "color", type: .text, defaultValue: .text("#8E8E93")),
                    Column(name: "archived", type: .bool, defaultValue: .bool(false)),
                    Column(name: "sort_order", type: .double, defaultValue: .double(0)),
                    Column(name: "metadata", type: .json, isNullable: true),
                ],
                indexes: [Index(name: "activities_name_idx", columns: ["name"])]
            ),
            Table(
                name: "sessions",
                columns: [
                    Column(name: "activity_id", type: .uuid, references: "activities"),
                    Column(name: "started_ms", type: .int),
                    Column(name: "ended_ms", type: .int, isNullable: true),
                    Column(name: "note", type: .text, isNullable: true),
                    Column(name: "source", type: .enumeration(["desktop", "phone", "watch"]), defaultValue: .text("desktop")),
                ],
                indexes: [
                    Index(name: "sessions_activity_id_idx", columns: ["activity_id"]),
                    Index(name: "sessions_started_ms_idx", columns: ["started_ms"]),
                ],
                rules: [.oneOpenRowPerOwner(start: "started_ms", end: "ended_ms")]
            ),
            Table(
                name: "tasks",
                conflict: .version(.timestamp),
                columns: [
                    Column(name: "title", type: .text),
                    Column(name: "notes", type: .text, isNullable: true),
                    Column(name: "done", type: .bool, defaultValue: .bool(false)),
                    Column(name: "due_at", type: .timestamp, isNullable: true),
                ]
            ),
            Table(
                name: "task_lists",
                conflict: .version(.integer),
                columns: [
                    Column(name: "name", type: .text),
                    Column(name: "position", type: .double, defaultValue: .double(0)),
                    Column(name: "icon", type: .bytes, isNullable: true),
                ]
            ),
        ])
        #expect(try Self.parse().schema == expected)
    }

    @Test func recordsWhereEachTableAndColumnIs() throws {
        let locations = try Self.parse().locations
        let lines = try String(contentsOf: Self.url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(locations.tables.count == 4)
        #expect(locations.columns.count == 17)
        // Each recorded place is the start of the key itself.
        for (name, location) in locations.tables.map({ ($0.key, $0.value) }) + locations.columns.map({ ($0.key.split(separator: ".").last.map(String.init) ?? "", $0.value) }) {
            let line = lines[location.line - 1]
            #expect(line.dropFirst(location.column - 1).hasPrefix("\(name):"), "\(name) at \(location.line):\(location.column)")
        }
        #expect(locations.tables["sessions"] == SourceLocation(file: "schema.yaml", line: 15, column: 3))
        #expect(locations.columns["sessions.ended_ms"] == SourceLocation(file: "schema.yaml", line: 19, column: 7))
    }
}
