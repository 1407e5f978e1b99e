import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import HopeSyncTestSupport
import Testing

/// Two ways the generated SQL loses a write, found by LifecycleEquivalenceTests and the lifecycle
/// fleet (session 17) and not yet fixed: each test states what should happen and records the
/// known issue while PostgreSQL does otherwise, so the fix shows here as an unexpected pass.
/// Both come from PostgreSQL's upsert running the before-write trigger on the proposed insert
/// first: the update then takes the named columns from what that made of them, and sees none
/// of the others.
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

    /// A build before a retype (Lifecycle v1: goal, an int) clears a goal whose newer text
    /// (`g225`, from v2's goal_text) its `back` reads as null. The clear is the register's
    /// newest write, so goal_text should be null; but the update sets goal to the null it
    /// already holds, and only the insert phase, whose goal_text the update does not take, saw
    /// which name the write set: goal_text keeps `g225` under the clear's stamp. (Seed 36015688
    /// of LifecycleFleetRandomTests, deterministic; the in-memory server does the same.)
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
        withKnownIssue("the update phase decides a renamed pair by which value changed, and goal's did not") {
            #expect(goalText == nil, "goal_text is \(goalText ?? "null")")
        }
    }

    private func task(_ id: UUID, _ title: String, version: SyncValue, _ table: TableSchema) -> ColumnValues {
        let values: [String: SyncValue] = [
            "id": .text(id.uuidString.lowercased()), "user_id": .text(user.uuidString.lowercased()), "title": .text(title),
            "done": .bool(false), "updated_at": version,
        ]
        let sent = table.columns.filter { !$0.role.isWrittenByServerOnly }.map(\.name)
        return ColumnValues(columns: sent, values: sent.map { values[$0] ?? .null })
    }

    /// A habit as `table`'s build sends it: `values`, each stamped column's stamp (`all` for the
    /// ones `stamps` leaves out), the pair the newest.
    private func habit(
        _ id: UUID, _ table: TableSchema, _ values: [String: SyncValue], stamps: [String: WriteStamp], all: WriteStamp
    ) -> ColumnValues {
        var row = values
        var columnStamps = ColumnStamps(stamps)
        for column in table.stampedColumns where columnStamps[column.name] == nil { columnStamps[column.name] = all }
        let pair = columnStamps.newest ?? all
        row["id"] = .text(id.uuidString.lowercased())
        row["user_id"] = .text(user.uuidString.lowercased())
        row["color"] = row["color"] ?? .text("#8E8E93")
        row["streak"] = table.column(named: "streak") == nil ? nil : .int(1)
        row[ReservedColumn.updatedMs] = .int(pair.ms)
        row[ReservedColumn.deviceId] = .text(pair.deviceID)
        row[ReservedColumn.columnStamps] = .text(columnStamps.json)
        let sent = table.columns.filter { !$0.role.isWrittenByServerOnly }.map(\.name)
        return ColumnValues(columns: sent, values: sent.map { row[$0] ?? .null })
    }
}
