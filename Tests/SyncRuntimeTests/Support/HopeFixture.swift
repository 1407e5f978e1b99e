import Foundation
import SyncRuntime

// A hand-written mirror of what the generator emits for schema.yaml (HopeSchema), until the
// tests switch to the generated module.

enum HopeFixture {
    static let activities = TableSchema(
        name: "activities",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("name", .text),
            ColumnSchema("color", .text),
            ColumnSchema("archived", .bool),
            ColumnSchema("sort_order", .double),
            ColumnSchema("metadata", .json, nullable: true),
            ColumnSchema("updated_ms", .int, role: .updatedMs),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("device_id", .text, role: .deviceId),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
        ],
        conflict: .lastWriterWins,
        ordering: .exact
    )

    static func sessions(ordering: PullOrdering = .exact) -> TableSchema {
        TableSchema(
            name: "sessions",
            columns: [
                ColumnSchema("id", .uuid, role: .id),
                ColumnSchema("user_id", .uuid, role: .owner),
                ColumnSchema("activity_id", .uuid),
                ColumnSchema("started_ms", .int),
                ColumnSchema("ended_ms", .int, nullable: true),
                ColumnSchema("note", .text, nullable: true),
                ColumnSchema("source", .enumeration(["desktop", "phone", "watch"])),
                ColumnSchema("updated_ms", .int, role: .updatedMs),
                ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
                ColumnSchema("device_id", .text, role: .deviceId),
                ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
            ],
            conflict: .lastWriterWins,
            ordering: ordering,
            openRowRule: OpenRowRule(start: "started_ms", end: "ended_ms")
        )
    }

    static let tasks = TableSchema(
        name: "tasks",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("title", .text),
            ColumnSchema("notes", .text, nullable: true),
            ColumnSchema("done", .bool),
            ColumnSchema("due_at", .timestamp, nullable: true),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("updated_at", .timestamp, nullable: true, role: .version),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
        ],
        conflict: .version(column: "updated_at", kind: .timestamp),
        ordering: .exact
    )

    static let taskLists = TableSchema(
        name: "task_lists",
        columns: [
            ColumnSchema("id", .uuid, role: .id),
            ColumnSchema("user_id", .uuid, role: .owner),
            ColumnSchema("name", .text),
            ColumnSchema("position", .double),
            ColumnSchema("icon", .bytes, nullable: true),
            ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
            ColumnSchema("version", .int, nullable: true, role: .version),
            ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
        ],
        conflict: .version(column: "version", kind: .integer),
        ordering: .exact
    )

    static let initialMigration = LocalMigration(version: 1, name: "initial", sql: """
        CREATE TABLE IF NOT EXISTS _sync_cursors (
            table_name TEXT PRIMARY KEY NOT NULL,
            server_seq INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE activities (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            name TEXT NOT NULL,
            color TEXT NOT NULL DEFAULT '#8E8E93',
            archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
            sort_order REAL NOT NULL DEFAULT 0,
            metadata TEXT,
            updated_ms INTEGER NOT NULL,
            deleted_ms INTEGER,
            device_id TEXT NOT NULL,
            server_seq INTEGER,
            _dirty INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX activities_name_idx ON activities (name);
        CREATE INDEX activities__dirty_idx ON activities (_dirty) WHERE _dirty = 1;
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            activity_id TEXT NOT NULL,
            started_ms INTEGER NOT NULL,
            ended_ms INTEGER,
            note TEXT,
            source TEXT NOT NULL DEFAULT 'desktop' CHECK (source IN ('desktop', 'phone', 'watch')),
            updated_ms INTEGER NOT NULL,
            deleted_ms INTEGER,
            device_id TEXT NOT NULL,
            server_seq INTEGER,
            _dirty INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX sessions_activity_id_idx ON sessions (activity_id);
        CREATE INDEX sessions_started_ms_idx ON sessions (started_ms);
        CREATE INDEX sessions__dirty_idx ON sessions (_dirty) WHERE _dirty = 1;
        CREATE TABLE tasks (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            title TEXT NOT NULL,
            notes TEXT,
            done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
            due_at TEXT,
            deleted_ms INTEGER,
            updated_at TEXT,
            server_seq INTEGER,
            _dirty INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX tasks__dirty_idx ON tasks (_dirty) WHERE _dirty = 1;
        CREATE TABLE task_lists (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL,
            name TEXT NOT NULL,
            position REAL NOT NULL DEFAULT 0,
            icon BLOB,
            deleted_ms INTEGER,
            version INTEGER,
            server_seq INTEGER,
            _dirty INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX task_lists__dirty_idx ON task_lists (_dirty) WHERE _dirty = 1;
        """)

    static func app(sessionOrdering: PullOrdering = .exact) -> AppSchema {
        AppSchema(tables: [activities, sessions(ordering: sessionOrdering), tasks, taskLists], migrations: [initialMigration])
    }
}
