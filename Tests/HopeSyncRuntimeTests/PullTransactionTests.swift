import Foundation
import HopeSchema
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncTesting
import Testing

@_spi(Transport) @testable import HopeSync

/// Pulled pages applied in one transaction: every table's rows with its cursor, all or nothing,
/// and no more rows than the budget before the pull commits, nor a local write kept waiting.
@Suite struct PullTransactionTests {
    let user = UUID()
    let server = InMemoryServer.hope()
    var credentials: Credentials { Credentials(userID: user, accessToken: "") }

    /// A device with 3 activities and 5 sessions on the server, and a new device's first pages of each.
    func pagesOfTwoTables() async throws -> (reader: TestDevice, activities: PulledPage, sessions: PulledPage) {
        let writer = try TestDevice("writer", user: user, transport: server)
        try await writer.store.write { tx in
            for index in 0..<3 { try tx.save(Activity(name: "activity \(index)")) }
            for start in 0..<5 { try tx.save(Session(activityId: UUID(), startedMs: Int64(start), endedMs: Int64(start) + 1)) }
        }
        try await writer.sync()
        let activities = try await server.pull(Activity.table, after: 0, limit: 100, as: credentials)
        let sessions = try await server.pull(Session.table, after: 0, limit: 100, as: credentials)
        return (try TestDevice("reader", user: user, transport: server), activities, sessions)
    }

    @Test func pagesOfTwoTablesLandWithTheirCursors() async throws {
        let (reader, activities, sessions) = try await pagesOfTwoTables()
        let applied = try reader.store.applyPulled { transaction in
            try transaction.apply(activities, to: Activity.table)
            try transaction.apply(sessions, to: Session.table)
        }
        #expect(applied.applied == 8 && applied.undecodable.isEmpty)
        #expect(try reader.store.cursor(for: Activity.table) == activities.lastServerSeq)
        #expect(try reader.store.cursor(for: Session.table) == sessions.lastServerSeq)
        #expect(try reader.sessions().count == 5)
    }

    @Test func aFailedTransactionKeepsNeitherRowsNorCursors() async throws {
        let (reader, activities, sessions) = try await pagesOfTwoTables()
        struct Stopped: Error {}
        #expect(throws: SyncError.self) {
            try reader.store.applyPulled { transaction in
                try transaction.apply(activities, to: Activity.table)
                try transaction.apply(sessions, to: Session.table)
                throw Stopped()
            }
        }
        #expect(try reader.store.cursor(for: Activity.table) == 0 && reader.store.cursor(for: Session.table) == 0)
        #expect(try reader.sessions().isEmpty)
        #expect(try await reader.store.read { try $0.fetchCount(Activity.self) } == 0)
    }

    @Test func aTransactionCommitsOnceItTookItsBudgetOfRows() async throws {
        let (reader, _, sessions) = try await pagesOfTwoTables()
        let template = try #require(sessions.rows.first)
        // Rows of one page of the budget less one, then one more: full only after it.
        func page(_ ids: Range<Int>) -> PulledPage {
            let rows = ids.map { index in
                var row = template
                for (offset, column) in row.columns.enumerated() {
                    if column == ReservedColumn.id { row.values[offset] = .text(UUID().uuidString.lowercased()) }
                    if column == ReservedColumn.serverSeq { row.values[offset] = .int(Int64(1_000 + index)) }
                }
                return row
            }
            return PulledPage(rows: rows, receivedCount: rows.count, lastServerSeq: Int64(1_000 + ids.upperBound - 1))
        }
        let budget = PullTransaction.rowBudget
        var commitAfter: [Bool] = []
        let applied = try reader.store.applyPulled { transaction in
            try transaction.apply(page(0..<(budget - 1)), to: Session.table)
            commitAfter.append(transaction.shouldCommit)
            try transaction.apply(page((budget - 1)..<budget), to: Session.table)
            commitAfter.append(transaction.shouldCommit)
        }
        #expect(commitAfter == [false, true])
        #expect(applied.applied == budget)
        #expect(try reader.store.cursor(for: Session.table) == Int64(1_000 + budget - 1))
    }

    @Test func aLocalWriteWaitingForTheWriterEndsTheTransactionAfterThePageAtHand() async throws {
        let (reader, activities, _) = try await pagesOfTwoTables()
        let store = reader.store
        var commitAfter: [Bool] = []
        var write: Task<Void, any Error>?
        _ = try store.applyPulled { transaction in
            try transaction.apply(activities, to: Activity.table)
            commitAfter.append(transaction.shouldCommit)
            write = Task.detached { try await store.write { _ = try $0.save(Activity(name: "typed meanwhile")) } }
            // Until the write waits for the writer this transaction holds (at most ten seconds).
            for _ in 0..<10_000 where !store.pool.hasWaitingWriters { Thread.sleep(forTimeInterval: 0.001) }
            commitAfter.append(transaction.shouldCommit)
        }
        try await write?.value
        #expect(commitAfter == [false, true])
        #expect(try await store.read { try $0.fetchCount(Activity.self) } == 4)
    }
}
