import Foundation
import HopeSyncSQLite
import Testing

@testable import HopeSync

/// The runtime's side of a rename or a deprecation (decision 0052): the writes it keeps name
/// the column by its new name, or no longer name a dropped one; other tables' are left alone.
@Suite struct ColumnChangeTests {
    func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: TestDevice.temporaryPath("column-changes"))
        try queue.inDatabase { db in
            for migration in RuntimeMigrations.all { try db.execute(migration.sql) }
            try db.execute("CREATE TABLE _sync_column_changes (table_name TEXT NOT NULL, old_name TEXT NOT NULL, new_name TEXT)")
            let body = #"[["name",{"t":"Run"}],["color",{"t":"red"}]]"#
            let filters = #"[["deleted_ms","isNull",null],["name","eq",{"t":"Walk"}]]"#
            for table in ["habits", "other"] {
                try db.execute(
                    """
                    INSERT INTO _sync_mutations (user_id, table_name, operation, row_id, body, base_version, base, filters, created_ms)
                    VALUES ('u', ?, 'UPDATE', 'r', ?, '1', ?, ?, 0)
                    """, [.text(table), .text(body), .text(body), .text(filters)])
                try db.execute(
                    """
                    INSERT INTO _sync_conflicted (user_id, table_name, operation, row_id, body, base, filters, server,
                        changed_on_server, conflicting_columns, message, created_ms, conflicted_ms)
                    VALUES ('u', ?, 'UPDATE', 'r', ?, ?, ?, NULL, '["name","color"]', '["name"]', 'm', 0, 0)
                    """, [.text(table), .text(body), .text(body), .text(filters)])
            }
        }
        return queue
    }

    func stored(_ queue: DatabaseQueue, _ table: String) throws -> [String] {
        try queue.inDatabase { db in
            let mutation = try db.fetchOne("SELECT body, base, filters FROM _sync_mutations WHERE table_name = ?", [.text(table)]) {
                [$0.text(at: 0) ?? "", $0.text(at: 1) ?? "", $0.text(at: 2) ?? ""]
            }
            let conflicted = try db.fetchOne(
                "SELECT body, server, changed_on_server, conflicting_columns FROM _sync_conflicted WHERE table_name = ?", [.text(table)]
            ) { [$0.text(at: 0) ?? "", $0.text(at: 1) ?? "null", $0.text(at: 2) ?? "", $0.text(at: 3) ?? ""] }
            return (mutation ?? []) + (conflicted ?? [])
        }
    }

    @Test func aRenameRenamesTheColumnInEveryKeptWriteOfItsTable() throws {
        let queue = try database()
        let before = try stored(queue, "other")
        try queue.inDatabase { db in
            try db.execute("INSERT INTO _sync_column_changes VALUES ('habits', 'name', 'title')")
            let pending = try ColumnChange.pending(db)
            #expect(pending == [ColumnChange(table: "habits", old: "name", new: "title")])
            for change in pending { try change.apply(db) }
            #expect(try ColumnChange.pending(db).isEmpty)
        }
        let body = #"[["title",{"t":"Run"}],["color",{"t":"red"}]]"#
        #expect(
            try stored(queue, "habits") == [
                body, body, #"[["deleted_ms","isNull",null],["title","eq",{"t":"Walk"}]]"#, body, "null", #"["title","color"]"#,
                #"["title"]"#,
            ])
        #expect(try stored(queue, "other") == before)
        // What the queue reads back.
        let decoded = try StoredValues.decode(try stored(queue, "habits")[0])
        #expect(decoded.columns == ["title", "color"])
    }

    @Test func aDeprecationTakesTheColumnOutOfEveryKeptWriteOfItsTable() throws {
        let queue = try database()
        try queue.inDatabase { db in
            try db.execute("INSERT INTO _sync_column_changes VALUES ('habits', 'name', NULL)")
            for change in try ColumnChange.pending(db) { try change.apply(db) }
            #expect(try ColumnChange.pending(db).isEmpty)
        }
        let body = #"[["color",{"t":"red"}]]"#
        #expect(
            try stored(queue, "habits") == [body, body, #"[["deleted_ms","isNull",null]]"#, body, "null", #"["color"]"#, "[]"])
    }

    @Test func aDeprecatedTablesBookkeepingIsForgotten() throws {
        let queue = try database()
        let before = try stored(queue, "other")
        try queue.inDatabase { db in
            try db.execute("CREATE TABLE _sync_cursors (table_name TEXT PRIMARY KEY NOT NULL, server_seq INTEGER NOT NULL DEFAULT 0)")
            try db.execute("INSERT INTO _sync_cursors VALUES ('habits', 5), ('other', 7)")
            try db.execute("INSERT INTO _sync_column_changes VALUES ('habits', '', NULL)")
            for change in try ColumnChange.pending(db) { try change.apply(db) }
            #expect(try ColumnChange.pending(db).isEmpty)
            #expect(try db.fetchAll("SELECT table_name FROM _sync_cursors") { $0.text(at: 0) ?? "" } == ["other"])
        }
        #expect(try stored(queue, "habits").isEmpty)
        #expect(try stored(queue, "other") == before)
    }

    /// A renamed table (decision 0054): its kept writes, lists, cursors and re-pull mark move to
    /// the new name, as they were; other tables' stay.
    @Test func aRenamedTablesBookkeepingMovesToItsNewName() throws {
        let queue = try database()
        let kept = try stored(queue, "habits")
        let before = try stored(queue, "other")
        try queue.inDatabase { db in
            try db.execute("CREATE TABLE _sync_cursors (table_name TEXT PRIMARY KEY NOT NULL, server_seq INTEGER NOT NULL DEFAULT 0)")
            try db.execute("INSERT INTO _sync_cursors VALUES ('habits', 5), ('other', 7)")
            try db.execute("INSERT INTO _sync_meta (key, value) VALUES ('repull:habits', '1')")
            try db.execute("INSERT INTO _sync_column_changes VALUES ('habits', '', 'routines')")
            let pending = try ColumnChange.pending(db)
            #expect(pending == [ColumnChange(table: "habits", old: "", new: "routines")])
            for change in pending { try change.apply(db) }
            #expect(try ColumnChange.pending(db).isEmpty)
            let cursors = try db.fetchAll("SELECT table_name, server_seq FROM _sync_cursors ORDER BY 1") {
                "\($0.text(at: 0) ?? "") \($0.int64(at: 1))"
            }
            #expect(cursors == ["other 7", "routines 5"])
            #expect(try db.fetchAll("SELECT key FROM _sync_meta WHERE key LIKE 'repull:%'") { $0.text(at: 0) ?? "" } == ["repull:routines"])
        }
        #expect(try stored(queue, "habits").isEmpty)
        #expect(try stored(queue, "routines") == kept)
        #expect(try stored(queue, "other") == before)
    }
}
