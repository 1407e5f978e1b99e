import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import Testing

/// A way the generated SQL loses a write, found by LifecycleEquivalenceTests (session 17) and
/// not yet fixed: the test states what should happen and records the known issue while
/// PostgreSQL does otherwise, so the fix shows here as an unexpected pass. It comes from
/// PostgreSQL's upsert running the before-write trigger on the proposed insert first: the
/// update then takes the named columns from what that made of them.
@Suite struct PostgresKnownIssuesTests {
    let user = UUID()

    /// An edit made while a new row's first push is out waits at the version the answer gave
    /// and goes again as the whole row (SyncStore.settlePushed, decision 0049). Under a
    /// timestamp version the insert gives the proposed row `now()`, which is never the stored
    /// one, so the update is skipped: the edit never lands, and the row is pushed at every
    /// pass. (The in-memory server takes it; SharingPushTests holds the runtime to that.)
    @Test func anEditMadeWhileANewRowsFirstPushWasOutLands() async throws {
        let server = try TestServer()
        let table = TaskItem.table
        let id = UUID()
        let answer = try await server.transport.upsert([task(id, "Milk", version: .null, table)], into: table, as: Credentials(user))
        let version = try #require(answer.rows.first?["updated_at"])
        try await server.transport.upsert([task(id, "Oat milk", version: version, table)], into: table, as: Credentials(user))
        let held = try await server.rows(of: table, for: user)[id.uuidString.lowercased()]?["title"]
        withKnownIssue("the upsert's insert phase gives updated_at now(), so the update never names the stored version") {
            #expect(held == .text("Oat milk"))
        }
    }

    private func task(_ id: UUID, _ title: String, version: SyncValue, _ table: TableSchema) -> ColumnValues {
        let values: [String: SyncValue] = [
            "id": .text(id.uuidString.lowercased()), "user_id": .text(user.uuidString.lowercased()), "title": .text(title),
            "done": .bool(false), "updated_at": version,
        ]
        return table.pushed(values)
    }
}
