import Foundation
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import Testing

/// A retype's renamed pair on PostgreSQL (Tests/Fixtures/Lifecycle v2: habits.goal, an int, is
/// goal_text, a text), written by the builds on either side of it.
@Suite struct RetypeEndToEndTests {
    let user = UUID()

    /// A build before a retype (Lifecycle v1: goal, an int) clears a goal whose newer text
    /// (`g225`, from v2's goal_text) its `back` reads as null. The clear is the register's
    /// newest write, so goal_text is null. Before, the upsert's insert phase made the pair
    /// equal, and its update, which takes only goal, saw goal set to the null it held: goal_text
    /// kept `g225` under the clear's stamp (seed 36015688 of LifecycleFleetRandomTests). The
    /// trigger now leaves the pair to the update over a row that exists.
    @Test func anOldBuildsClearOfARetypedColumnReachesItsNewName() async throws {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try LifecycleEndToEndTests.migrate(connection, to: "v2")
        let transport = PostgresTransport(url: database.url)
        let v1 = try #require(LifecycleBuilds.v1.table(named: "habits"))
        let v2 = try #require(LifecycleBuilds.v2.table(named: "habits"))
        let id = UUID()
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        let first = WriteStamp(ms: now - 3_000, deviceID: "old")
        try await transport.stating(schemaVersion: 1).upsert(
            [habit(id, v1, ["name": .text("Read"), "goal": .int(586)], stamps: ["name": first, "goal": first], all: first)], into: v1,
            as: Credentials(user))
        let text = WriteStamp(ms: now - 2_000, deviceID: "new")
        try await transport.stating(schemaVersion: 2).upsert(
            [habit(id, v2, ["title": .text("Read"), "goal_text": .text("g225")], stamps: ["goal_text": text, "goal": first], all: first)],
            into: v2, as: Credentials(user))
        let clear = WriteStamp(ms: now - 1_000, deviceID: "old")
        try await transport.stating(schemaVersion: 1).upsert(
            [habit(id, v1, ["name": .text("Read"), "goal": .null], stamps: ["goal": clear, "goal_text": first], all: first)], into: v1,
            as: Credentials(user))
        let goalText = try connection.execute("select goal_text from public.habits where id = $1", [id.uuidString.lowercased()]).scalar
        #expect(goalText == nil, "goal_text is \(goalText ?? "null")")
    }

    /// A habit as `table`'s build sends it: `values`, each stamped column's stamp (`all` for the
    /// ones `stamps` leaves out), the pair the newest.
    private func habit(
        _ id: UUID, _ table: TableSchema, _ values: [String: SyncValue], stamps: [String: WriteStamp], all: WriteStamp
    ) -> ColumnValues {
        var row = values
        var columnStamps = ColumnStamps(stamps)
        for column in table.stampedColumns where columnStamps[column.name] == nil { columnStamps[column.name] = all }
        row["id"] = .text(id.uuidString.lowercased())
        row["user_id"] = .text(user.uuidString.lowercased())
        row["color"] = row["color"] ?? .text("#8E8E93")
        row["streak"] = table.column(named: "streak") == nil ? nil : .int(1)
        return table.pushed(row, stamps: columnStamps)
    }
}
