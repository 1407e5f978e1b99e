import Foundation
import HopeSync
import HopeSyncSQLite
import Testing

/// The SQLite wrapper's side of observation: the tables a read used, and the tables committed
/// transactions changed.
@Suite struct DatabaseRegionTests {
    func queue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: TestDevice.temporaryPath("region"))
        try queue.inDatabase { db in
            try db.execute("CREATE TABLE a (id INTEGER PRIMARY KEY, x TEXT); CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER)")
        }
        return queue
    }

    @Test func aReadRecordsTheTablesItsStatementsRead() throws {
        let queue = try queue()
        try queue.inDatabase { db in
            for _ in 0..<2 { // prepared, then from the statement cache
                let (_, count) = try db.recordingReads { try db.fetchOne("SELECT count(*) FROM a") { $0.int64(at: 0) } }
                #expect(count == DatabaseRegion(tables: ["a"]))
                let (_, join) = try db.recordingReads {
                    try db.fetchAll("SELECT a.x FROM a JOIN b ON b.a_id = a.id") { $0.text(at: 0) }
                }
                #expect(join == DatabaseRegion(tables: ["a", "b"]))
            }
            let (_, unknown) = try db.recordingReads { try db.execute("SELECT 1") }
            #expect(unknown.isFullDatabase)
        }
    }

    @Test func committedTransactionsReportTheirTablesAndRollbacksNothing() throws {
        let queue = try queue()
        let changes = try queue.trackChanges()
        try queue.write { try $0.execute("INSERT INTO a (x) VALUES (?)", [.text("1")]) }
        #expect(changes.take() == DatabaseRegion(tables: ["a"]))
        #expect(changes.take().isEmpty)
        _ = try? queue.write { db in
            try db.execute("INSERT INTO b (a_id) VALUES (?)", [.integer(1)])
            throw SQLiteError(code: 1, message: "rolled back")
        }
        #expect(changes.take().isEmpty)
        // No WHERE: SQLite would empty the table without telling the update hook.
        try queue.write { try $0.execute("DELETE FROM a") }
        #expect(changes.take() == DatabaseRegion(tables: ["a"]))
        // A DROP still drops on a tracking connection.
        try queue.inDatabase { try $0.execute("DROP TABLE b") }
        let tables = try queue.read { db in try db.fetchAll("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(at: 0) } }
        #expect(tables == ["a"])
    }
}
