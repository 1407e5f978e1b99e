import Foundation
import HopeSyncGenerator
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncSchema
import Testing

/// Backfills (decision 0053) in the conflict modes and sharing the lifecycle fixture does not
/// have: the example shared schema (Tests/Fixtures/Sharing) with a whole-row table beside it,
/// then a step that adds a backfilled column to a column-merge table (activities), a shared
/// version table moved by updated_at (tasks) and the whole-row table (logs). The rows are
/// written as devices write them, then the step's migration runs.
@Suite struct BackfillSQLTests {
    let owner = UUID()
    let editor = UUID()
    let list = UUID()
    let connection: Connection
    let step: String

    static let logs = "\n  logs:\n    merge: row\n    columns:\n      title: text\n"
    static var v1: String {
        get throws {
            try String(
                contentsOf: GeneratedPgTAPTests.packageRoot.appendingPathComponent("Tests/Fixtures/Sharing/schema.yaml"), encoding: .utf8)
                + logs
        }
    }
    static var v2: String {
        get throws {
            try v1.replacingOccurrences(
                of: "      metadata: { type: json, nullable: true }\n",
                with: "      metadata: { type: json, nullable: true }\n"
                    + #"      initial: { type: text, nullable: true, backfill: "upper(left(name, 1))" }"# + "\n"
            )
            .replacingOccurrences(
                of: "      list_id: { type: uuid, nullable: true, references: task_lists }\n",
                with: "      list_id: { type: uuid, nullable: true, references: task_lists }\n"
                    + #"      title_length: { type: int, nullable: true, backfill: "length(title)" }"# + "\n"
            )
                + #"      letter: { type: text, nullable: true, backfill: "left(title, 1)" }"# + "\n"
        }
    }

    init() throws {
        let generator = Generator(templates: try TemplateSet(directory: nil), stamp: { "20261204090000" })
        let first = try generator.generate(SchemaParser.parse(try Self.v1), existing: GeneratedTree())
        let second = try generator.generate(SchemaParser.parse(try Self.v2), existing: first.tree)
        let migrations = { (output: Generator.Output) in
            output.tree.files.filter { $0.key.hasPrefix("supabase/migrations/") }.sorted { $0.key < $1.key }.map(\.value)
        }
        connection = try PostgresCluster.createDatabase().connect()
        for sql in migrations(first) { try connection.execute(script: sql) }
        step = try #require(migrations(second).last)
        #expect(step.contains("'logs.letter@2'"))
    }

    private func write(_ sql: String, _ parameters: [String?], as user: UUID) throws {
        try connection.request(asUser: user) { try $0.execute(sql, parameters) }
    }

    private func value(_ sql: String, _ parameters: [String?] = []) throws -> String? {
        try connection.execute(sql, parameters).scalar
    }

    @Test func eachModeTakesTheBackfillAsAWriteTheReadersPull() throws {
        let (run, gone, legacy, log, task) = (UUID(), UUID(), UUID(), UUID(), UUID())
        let stamp = "'{\"name\": \"000001700000000:phone\", \"color\": \"000001700000000:phone\"}'::jsonb"
        for id in [run, gone, legacy] {
            try write(
                "insert into public.activities (id, user_id, name, updated_ms, device_id, column_stamps) values ($1, $2, 'run', 1700000000, 'phone', \(stamp))",
                [id.text, owner.text], as: owner)
        }
        try write(
            "update public.activities set deleted_ms = 1700000001, updated_ms = 1700000001, column_stamps = column_stamps || '{\"deleted_ms\": \"000001700000001:phone\"}' where id = $1",
            [gone.text], as: owner)
        // A row stored before the table merged columns: no stamps.
        try connection.execute("alter table public.activities disable trigger user")
        try connection.execute("update public.activities set column_stamps = null where id = $1", [legacy.text])
        try connection.execute("alter table public.activities enable trigger user")
        try write(
            "insert into public.logs (id, user_id, title, updated_ms, device_id) values ($1, $2, 'walk', 1700000000, 'phone')",
            [log.text, owner.text],
            as: owner)
        try write("insert into public.task_lists (id, user_id, name) values ($1, $2, 'groceries')", [list.text, owner.text], as: owner)
        try write(
            "insert into public.task_lists_members (scope_id, user_id, role) values ($1, $2, 'editor')", [list.text, editor.text], as: owner
        )
        try write(
            "insert into public.tasks (id, user_id, title, list_id) values ($1, $2, 'milk', $3)", [task.text, owner.text, list.text],
            as: owner)
        let updatedAt = try value("select updated_at::text from public.tasks")
        let lastSeq = try #require(try value("select last_value::text from public.sync_server_seq"))
        let lastXid = try #require(try value("select pg_current_xact_id()::text"))

        try connection.execute(script: step)

        // Column merge: the lowest stamp; a row without stamps one past its pair; a deleted row
        // filled and still deleted.
        #expect(
            try value("select initial || ' ' || (column_stamps ->> 'initial') from public.activities where id = $1", [run.text])
                == "R 000000000000000:")
        #expect(
            try value("select initial || ' ' || (column_stamps ->> 'initial') from public.activities where id = $1", [legacy.text])
                == "R 000001700000001:")
        #expect(try value("select (deleted_ms is not null)::text || initial from public.activities where id = $1", [gone.text]) == "trueR")
        // Whole rows: the pair one past itself, by no device.
        #expect(try value("select letter || updated_ms::text || '/' || device_id from public.logs") == "w1700000001/")
        // A shared version table: filled, updated_at moved; the scope's members marked.
        #expect(try value("select title_length::text from public.tasks") == "4")
        #expect(try value("select updated_at::text from public.tasks") != updatedAt)
        for table in ["activities", "logs", "tasks"] {
            #expect(try value("select count(*)::text from public.\(table) where server_seq <= $1", [lastSeq]) == "0", "\(table)")
        }
        for user in [owner, editor] {
            #expect(
                try value("select count(*)::text from public.sync_marks where user_id = $1 and xid > $2::xid8", [user.text, lastXid]) != "0"
            )
        }

        // A device's write of the column, stamped 1 ms after 1970, wins; the step run again
        // (a paste, a second push) writes nothing.
        try connection.request(asUser: owner) { connection in
            try connection.execute(
                "update public.activities set initial = 'r', column_stamps = column_stamps || '{\"initial\": \"000000000000001:slow\"}' where id = $1",
                [run.text])
        }
        #expect(try value("select initial from public.activities where id = $1", [run.text]) == "r")
        let seqs =
            "select string_agg(server_seq::text, ',' order by id) from (select id, server_seq from public.activities union all select id, server_seq from public.tasks union all select id, server_seq from public.logs) r"
        let before = try value(seqs)
        try connection.execute(script: step)
        #expect(try value(seqs) == before)
        #expect(try value("select initial from public.activities where id = $1", [run.text]) == "r")
    }
}
