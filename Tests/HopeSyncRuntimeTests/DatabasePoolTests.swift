import Foundation
import HopeSyncSQLite
import HopeSyncTestSupport
import Testing

/// The pool the store stands on: one writer, readers beside it, and a read inside a write on the
/// writer.
@Suite struct DatabasePoolTests {
    let pool: DatabasePool

    init() throws {
        pool = try DatabasePool(path: TestDevice.temporaryPath("pool"), maximumReaderCount: 2)
        try pool.write { try $0.execute("CREATE TABLE t (name TEXT)") }
    }

    func count(_ database: Database) throws -> Int64? {
        try database.fetchOne("SELECT count(*) FROM t") { $0.int64(at: 0) }
    }

    @Test func aReadInsideAWriteSeesItsRowsAndAReadElsewhereTheLastCommit() throws {
        try pool.write { database in
            try database.execute("INSERT INTO t (name) VALUES (?)", ["uncommitted"])
            #expect(try pool.read(count) == 1)
            // Another thread's read runs beside the write, on a reader, without waiting for it.
            let elsewhere = Locked<Int64??>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread { [pool] in
                elsewhere.value = try? pool.read(count)
                done.signal()
            }.start()
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(elsewhere.value == .some(0))
        }
        #expect(try pool.read(count) == 1)
    }

    @Test func theWriterReportsTheTablesEachCommitChanged() throws {
        let changes = try pool.trackChanges()
        try pool.write { try $0.execute("INSERT INTO t (name) VALUES (?)", ["a"]) }
        #expect(changes.take() == DatabaseRegion(tables: ["t"]))
        _ = try pool.read(count)
        #expect(changes.take().isEmpty)
    }

    @Test func aClosedPoolRefusesReadsAndWrites() throws {
        pool.close()
        #expect(pool.isClosed)
        #expect(throws: SQLiteError.self) { try pool.read(count) }
        #expect(throws: SQLiteError.self) { try pool.write(count) }
        #expect(throws: SQLiteError.self) { try pool.writeWithoutTransaction(count) }
    }
}
