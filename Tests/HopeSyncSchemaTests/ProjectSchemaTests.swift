import Foundation
import Testing

@testable import HopeSyncSchema

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
                swiftName: "TaskItem",
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
            Table(
                name: "task_photos",
                conflict: .version(.timestamp),
                columns: [
                    Column(name: "task_id", type: .uuid, references: "tasks"),
                    Column(name: "photo", type: .file(bucket: "task-photos")),
                    Column(name: "caption", type: .text, isNullable: true),
                ],
                indexes: [Index(name: "task_photos_task_id_idx", columns: ["task_id"])]
            ),
        ])
        #expect(try Self.parse().schema == expected)
    }

    @Test func recordsWhereEachTableAndColumnIs() throws {
        let parsed = try Self.parse()
        let lines = try String(contentsOf: Self.url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var places: [(name: String, location: HopeSyncSchema.SourceLocation?)] = []
        for table in parsed.schema.tables {
            places.append((table.name, parsed.locations.tables[table.name]))
            places += table.columns.map { ($0.name, parsed.locations.columns["\(table.name).\($0.name)"]) }
        }
        #expect(places.count == parsed.locations.tables.count + parsed.locations.columns.count)
        // Each recorded place is the start of the key itself.
        for (name, location) in places {
            let location = try #require(location, "\(name) has no location")
            #expect(location.file == "schema.yaml")
            #expect(
                lines[location.line - 1].dropFirst(location.column - 1).hasPrefix("\(name):"),
                "\(name) at \(location.line):\(location.column)")
        }
    }
}
