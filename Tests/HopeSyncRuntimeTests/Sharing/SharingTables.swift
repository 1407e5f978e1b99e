import Foundation
import HopeSyncModel

@_spi(Transport) @testable import HopeSync

/// The runtime tables of Tests/Fixtures/Sharing/schema.yaml as the generator lists them
/// (task_lists a scope, tasks in a list by list_id, task_photos following their task, and the
/// generated task_lists_members), with task_photos merged column by column as in the
/// shared_scope reference, so the server's own stamped writes are exercised; and a second scope
/// table, boards, for scope ids reused across scope tables.
enum SharingTables {
    static let lists = TableSchema(
        name: "task_lists",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("name", .text),
            ColumnSchema("position", .double),
            ColumnSchema("icon", .bytes, nullable: true),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("version", .int, role: .version),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
            ColumnSchema("updated_by", .uuid, nullable: true, role: .updatedBy),
        ],
        conflict: .version(.integer), ordering: .exact, scope: .scope("task_lists", members: "task_lists_members"))

    static let members = membership(of: "task_lists")

    static let tasks = TableSchema(
        name: "tasks",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("title", .text),
            ColumnSchema("notes", .text, nullable: true),
            ColumnSchema("done", .bool),
            ColumnSchema("due_at", .timestamp, nullable: true),
            ColumnSchema("list_id", .uuid, nullable: true),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("updated_at", .timestamp, role: .version),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
            ColumnSchema("updated_by", .uuid, nullable: true, role: .updatedBy),
        ],
        conflict: .version(.timestamp), ordering: .exact, scope: .scoped(by: "list_id", in: "task_lists", members: "task_lists_members"))

    static let photos = TableSchema(
        name: "task_photos",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("task_id", .uuid),
            ColumnSchema("list_id", .uuid, nullable: true),
            ColumnSchema("photo", .file(bucket: "task-photos")),
            ColumnSchema("caption", .text, nullable: true),
            ColumnSchema("updated_ms", .int, role: .updatedMs),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("device_id", .text, role: .deviceId),
            ColumnSchema("column_stamps", .json, nullable: true, role: .columnStamps),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
            ColumnSchema("updated_by", .uuid, nullable: true, role: .updatedBy),
        ],
        conflict: .lww, ordering: .exact,
        scope: .follows(through: "task_id", column: "list_id", in: "task_lists", members: "task_lists_members"))

    static let boards = TableSchema(
        name: "boards",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("title", .text),
            ColumnSchema("updated_ms", .int, role: .updatedMs),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("device_id", .text, role: .deviceId),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
            ColumnSchema("updated_by", .uuid, nullable: true, role: .updatedBy),
        ],
        conflict: .lww, ordering: .exact, scope: .scope("boards", members: "boards_members"))

    /// Every table a scope holds: what a pull names as its shared tables.
    static let shared = [lists, members, tasks, photos]
    static let all = shared + [boards, membership(of: "boards")]

    /// A membership table as the generator lists it.
    static func membership(of scopeTable: String) -> TableSchema {
        TableSchema(
            name: "\(scopeTable)_members",
            columns: [
                ColumnSchema("id", .uuid, role: .id),
                ColumnSchema("scope_id", .uuid),
                ColumnSchema("user_id", .uuid),
                ColumnSchema("role", .enumeration(["owner", "editor", "viewer"])),
                ColumnSchema("added_by", .uuid),
                ColumnSchema("added_at", .timestamp),
                ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
                ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
            ],
            conflict: .version(.integer), ordering: .exact, scope: .membership(of: scopeTable, table: "\(scopeTable)_members"))
    }

    // MARK: Rows as a device pushes them (every column but server_seq and updated_by)

    static func list(_ id: UUID, name: String, by user: UUID, deleted: Int64? = nil) -> ColumnValues {
        row(lists, ["id": id.syncText, "user_id": user.syncText, "name": .text(name), "position": .double(0), "deleted_ms": int(deleted)])
    }

    static func task(_ id: UUID, title: String, list: UUID?, by user: UUID) -> ColumnValues {
        row(
            tasks,
            ["id": id.syncText, "user_id": user.syncText, "title": .text(title), "done": .bool(false), "list_id": list?.syncText ?? .null])
    }

    static func photo(_ id: UUID, task: UUID, list: UUID?, by user: UUID, updated: Int64, device: String = "d1") -> ColumnValues {
        row(
            photos,
            [
                "id": id.syncText, "user_id": user.syncText, "task_id": task.syncText, "list_id": list?.syncText ?? .null,
                "photo": .text("p.jpg"), "updated_ms": .int(updated), "device_id": .text(device),
            ])
    }

    static func board(_ id: UUID, by user: UUID) -> ColumnValues {
        row(boards, ["id": id.syncText, "user_id": user.syncText, "title": .text("b"), "updated_ms": .int(1), "device_id": .text("d1")])
    }

    private static func int(_ value: Int64?) -> SyncValue { value.map(SyncValue.int) ?? .null }

    /// Every column but those only the server writes, in table order; a column not given is null.
    private static func row(_ table: TableSchema, _ values: [String: SyncValue]) -> ColumnValues {
        let columns = table.columns.filter { !$0.role.isWrittenByServerOnly }.map(\.name)
        return ColumnValues(columns: columns, values: columns.map { values[$0] ?? .null })
    }
}
