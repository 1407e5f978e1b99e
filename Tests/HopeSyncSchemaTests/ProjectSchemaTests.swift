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
                    Column(name: "list_id", type: .uuid, isNullable: true, references: "task_lists"),
                ],
                sharing: .scoped(by: "list_id", scopeTable: "task_lists")
            ),
            Table(
                name: "task_lists",
                conflict: .version(.integer),
                columns: [
                    Column(name: "name", type: .text),
                    Column(name: "position", type: .double, defaultValue: .double(0)),
                    Column(name: "icon", type: .bytes, isNullable: true),
                ],
                sharing: .scope
            ),
            Table(
                name: "task_photos",
                conflict: .version(.timestamp),
                columns: [
                    Column(name: "task_id", type: .uuid, references: "tasks"),
                    Column(name: "list_id", type: .uuid, isNullable: true, references: "task_lists"),
                    Column(name: "photo", type: .file(bucket: "task-photos")),
                    Column(name: "caption", type: .text, isNullable: true),
                ],
                indexes: [Index(name: "task_photos_task_id_idx", columns: ["task_id"])],
                sharing: .follows(through: "task_id", column: "list_id", scopeTable: "task_lists")
            ),
        ])
        #expect(try Self.parse().schema == expected)
    }

    @Test func recordsWhereEachTableAndColumnIs() throws {
        let parsed = try Self.parse()
        let lines = try String(contentsOf: Self.url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var places: [(text: String, location: HopeSyncSchema.SourceLocation?)] = []
        for table in parsed.schema.tables {
            places.append((table.name + ":", parsed.locations.tables[table.name]))
            places += table.columns.map { column in
                // A scope column hope-sync adds is placed where `scope:` names the reference.
                let text = if case .follows(let through, column.name, _)? = table.sharing { through } else { column.name + ":" }
                return (text, parsed.locations.columns["\(table.name).\(column.name)"])
            }
        }
        #expect(places.count == parsed.locations.tables.count + parsed.locations.columns.count)
        // Each recorded place is the start of the key itself.
        for (text, location) in places {
            let location = try #require(location, "\(text) has no location")
            #expect(location.file == "schema.yaml")
            #expect(
                lines[location.line - 1].dropFirst(location.column - 1).hasPrefix(text), "\(text) at \(location.line):\(location.column)")
        }
    }
}
