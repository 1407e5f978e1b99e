import Foundation
import HopeSyncSQLite
import Testing

/// The libsqlite3 wrapper the store stands on.
@Suite struct SQLiteTests {
    let queue: DatabaseQueue

    init() throws {
        queue = try DatabaseQueue(path: TestDevice.temporaryPath("sqlite"))
        try queue.inDatabase { try $0.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, data BLOB, ratio REAL)") }
    }

    func names() throws -> [String] {
        try queue.read { try $0.fetchAll("SELECT name FROM t ORDER BY id") { $0.text(at: 0) ?? "" } }
    }

    @Test func valuesRoundTrip() throws {
        let values: [DatabaseValue] = [.integer(1), .text("é ü"), .blob(Data([0, 255])), .real(0.5)]
        try queue.write { try $0.execute("INSERT INTO t VALUES (?, ?, ?, ?)", values) }
        let row = try queue.read { db in try db.fetchOne("SELECT id, name, data, ratio FROM t") { row in (0..<4).map { row[$0] } } }
        #expect(row == values)
    }

    @Test func textIsBoundWithItsLengthEmptyTextIsNotNull() throws {
        let texts = ["", "a\u{0}b", "é ü", String(repeating: "x", count: 10_000)]
        try queue.write { db in
            for (index, text) in texts.enumerated() {
                try db.execute("INSERT INTO t (id, name) VALUES (?, ?)", [.integer(Int64(index)), .text(text)])
            }
        }
        let stored = try queue.read { db in
            try db.fetchAll("SELECT name IS NULL, length(CAST(name AS BLOB)) FROM t ORDER BY id") { ($0.int64(at: 0), $0.int64(at: 1)) }
        }
        #expect(stored.map(\.0) == [0, 0, 0, 0])
        #expect(stored.map(\.1) == texts.map { Int64($0.utf8.count) })
    }

    @Test func aThrowingTransactionChangesNothing() throws {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try queue.write { db in
                try db.execute("INSERT INTO t (name) VALUES (?)", ["lost"])
                throw Stop()
            }
        }
        #expect(try names().isEmpty)
    }

    @Test func aNestedTransactionRollsBackAlone() throws {
        struct Stop: Error {}
        try queue.write { db in
            try db.execute("INSERT INTO t (name) VALUES (?)", ["kept"])
            _ = try? db.inTransaction {
                try db.execute("INSERT INTO t (name) VALUES (?)", ["undone"])
                throw Stop()
            }
        }
        #expect(try names() == ["kept"])
    }

    @Test func errorsNameTheStatement() throws {
        #expect {
            try queue.write { try $0.execute("INSERT INTO missing VALUES (?)", [1]) }
        } throws: { error in
            let error = error as? SQLiteError
            return error?.message.contains("no such table") == true && error?.sql == "INSERT INTO missing VALUES (?)"
        }
        // A failed statement leaves the connection usable.
        try queue.write { try $0.execute("INSERT INTO t (name) VALUES (?)", ["after"]) }
        #expect(try names() == ["after"])
    }

    @Test func statementsAreCachedPerSQL() throws {
        try queue.inDatabase { db in
            let first = try db.cachedStatement("SELECT 1")
            #expect(try db.cachedStatement("SELECT 1") === first)
            #expect(try db.makeStatement("SELECT 1") !== first)
        }
    }

    @Test func aClosedQueueRefusesAccess() throws {
        queue.close()
        #expect(queue.isClosed)
        #expect(throws: SQLiteError.self) { try names() }
    }
}
