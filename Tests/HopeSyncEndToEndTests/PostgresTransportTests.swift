import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSyncPostgres

/// The PostgreSQL transport's requests on the real generated SQL: values read back as the HTTP
/// transport reads them, guarded writes, and refusals as PostgREST would report them.
@Suite struct PostgresTransportTests {
    let user = UUID()

    /// A whole row of `table` for an upsert (every column but server_seq), the rest filled with
    /// plain values (as the device sends whole rows).
    func row(_ table: TableSchema, _ values: [String: SyncValue]) -> ColumnValues {
        let columns = table.columns.filter { $0.role != .serverSeq }
        return ColumnValues(
            columns: columns.map(\.name),
            values: columns.map { column in
                if let value = values[column.name] { return value }
                switch column.role {
                case .id: return .text(UUID().uuidString.lowercased())
                case .owner: return .text(user.uuidString.lowercased())
                case .updatedMs: return .int(1)
                case .deviceId: return .text("test")
                case .version: return .null
                default: break
                }
                guard !column.isNullable else { return .null }
                switch column.type {
                case .bool: return .bool(false)
                case .int: return .int(0)
                case .double: return .double(0)
                case .enumeration(let cases): return .text(cases[0])
                default: return .text("")
                }
            })
    }

    @Test func valuesReadBackAsTheHTTPTransportReadsThem() async throws {
        let server = try TestServer()
        let activity = UUID()
        try await server.transport.upsert(
            [
                row(
                    Activity.table,
                    [
                        "id": .text(activity.uuidString), "name": .text("Ünïcode \"quoted\""), "color": .text("#000"),
                        "archived": .bool(true), "sort_order": .double(-0.1),
                        "metadata": .text(#"{"b": 1, "a": [true, null], "c": {"z": 1.50, "y": "é"}}"#),
                    ])
            ], into: Activity.table, as: Credentials(user))
        let list = UUID()
        try await server.transport.upsert(
            [
                row(
                    TaskList.table,
                    [
                        "id": .text(list.uuidString), "name": .text("List"), "position": .double(.infinity),
                        "icon": .bytes(Data([0, 0x7f, 0xff])),
                    ])
            ], into: TaskList.table, as: Credentials(user))
        let task = UUID()
        try await server.transport.upsert(
            [
                row(
                    TaskItem.table,
                    [
                        "id": .text(task.uuidString), "title": .text("Task"), "done": .bool(false),
                        "due_at": .text("2026-10-18T15:00:27.4861+02:00"),
                    ])
            ], into: TaskItem.table, as: Credentials(user))

        let activities = try await server.rows(of: Activity.table, for: user)
        let readActivity = try #require(activities[activity.uuidString.lowercased()])
        #expect(readActivity["name"] == .text("Ünïcode \"quoted\""))
        #expect(readActivity["archived"] == .bool(true))
        #expect(readActivity["sort_order"] == .double(-0.1))
        #expect(readActivity["metadata"] == .text(#"{"a":[true,null],"b":1,"c":{"y":"é","z":1.50}}"#))
        #expect(readActivity["user_id"] == .text(user.uuidString.lowercased()))
        #expect(readActivity["deleted_ms"] == .null)
        #expect(readActivity["server_seq"]?.int != nil)

        let readList = try #require(try await server.rows(of: TaskList.table, for: user)[list.uuidString.lowercased()])
        #expect(readList["icon"] == .bytes(Data([0, 0x7f, 0xff])))
        #expect(readList["position"] == .double(.infinity))
        #expect(readList["version"] == .int(1))

        let readTask = try #require(try await server.rows(of: TaskItem.table, for: user)[task.uuidString.lowercased()])
        // PostgREST's form: 'T', microseconds with trailing zeros trimmed, the offset in full, UTC.
        #expect(readTask["due_at"] == .text("2026-10-18T13:00:27.4861+00:00"))
        let updatedAt = try #require(readTask["updated_at"]?.text)
        #expect(updatedAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{0,5}[1-9])?\+00:00/) != nil)
    }

    @Test func aGuardedUpdateAppliesOnlyAtTheVersionTheDeviceSaw() async throws {
        let server = try TestServer()
        let task = UUID()
        try await server.transport.upsert(
            [row(TaskItem.table, ["id": .text(task.uuidString), "title": .text("Before")])],
            into: TaskItem.table, as: Credentials(user))
        let seen = try #require(try await server.transport.fetch(TaskItem.table, id: task, columns: ["updated_at"], as: Credentials(user)))
        let base = try #require(seen["updated_at"]?.text)

        let notDone = [Filter("done", .eq, .bool(false)), Filter("deleted_ms", .isNull)]
        let applied = try await server.transport.guardedUpdate(
            TaskItem.table, id: task, baseVersion: base, set: ColumnValues(["title": .text("After")]),
            extraFilters: notDone, returning: ["id", "title", "updated_at"], as: Credentials(user))
        #expect(applied.count == 1)
        #expect(applied.first?["title"] == .text("After"))
        #expect(applied.first?["id"] == .text(task.uuidString.lowercased()))
        let moved = try #require(applied.first?["updated_at"]?.text)
        #expect(moved != base)

        // The base has moved on: nothing matches, nothing changes.
        let stale = try await server.transport.guardedUpdate(
            TaskItem.table, id: task, baseVersion: base, set: ColumnValues(["title": .text("Stale")]),
            extraFilters: [], returning: [], as: Credentials(user))
        #expect(stale.isEmpty)
        let now = try await server.transport.fetch(TaskItem.table, id: task, columns: [], as: Credentials(user))
        #expect(now?["title"] == .text("After") && now?["updated_at"] == .text(moved))

        // An integer version, and another user who cannot see the row at all.
        let list = UUID()
        try await server.transport.upsert(
            [row(TaskList.table, ["id": .text(list.uuidString), "name": .text("L")])],
            into: TaskList.table, as: Credentials(user))
        let bumped = try await server.transport.guardedUpdate(
            TaskList.table, id: list, baseVersion: "1", set: ColumnValues(["name": .text("M")]),
            extraFilters: [], returning: ["version"], as: Credentials(user))
        #expect(bumped.first?["version"] == .int(2))
        let stranger = try await server.transport.guardedUpdate(
            TaskList.table, id: list, baseVersion: "2", set: ColumnValues(["name": .text("X")]),
            extraFilters: [], returning: [], as: Credentials(UUID()))
        #expect(stranger.isEmpty)
        #expect(try await server.transport.fetch(TaskList.table, id: list, columns: [], as: Credentials(UUID())) == nil)
    }

    @Test func refusalsKeepTheSQLStateWithPostgRESTsStatus() async throws {
        let server = try TestServer()
        let activity = UUID()
        try await server.transport.upsert(
            [row(Activity.table, ["id": .text(activity.uuidString), "name": .text("Mine")])],
            into: Activity.table, as: Credentials(user))

        let foreign = await #expect(throws: SyncError.self) {
            try await server.transport.upsert(
                [row(Activity.table, ["id": .text(activity.uuidString), "name": .text("Theirs"), "updated_ms": .int(9)])],
                into: Activity.table, as: Credentials(UUID()))
        }
        #expect(foreign?.code == .server)
        #expect(foreign?.serverError?.code == "42501" && foreign?.httpStatus == 403)

        let badEnum = await #expect(throws: SyncError.self) {
            try await server.transport.upsert(
                [row(Session.table, ["activity_id": .text(activity.uuidString), "started_ms": .int(1), "source": .text("tablet")])],
                into: Session.table, as: Credentials(user))
        }
        #expect(badEnum?.serverError?.code == "23514" && badEnum?.httpStatus == 400)

        let badVersion = await #expect(throws: SyncError.self) {
            try await server.transport.guardedUpdate(
                TaskItem.table, id: UUID(), baseVersion: "yesterday-ish 25:99", set: ColumnValues(["title": .text("T")]),
                extraFilters: [], returning: [], as: Credentials(user))
        }
        #expect(badVersion?.serverError?.code == "22007" && badVersion?.httpStatus == 400)
        #expect(badVersion?.message.contains("yesterday-ish") == false)

        try server.database.connect().execute("alter table public.activities drop column color")
        let drift = await #expect(throws: SyncError.self) {
            try await server.transport.upsert([row(Activity.table, ["name": .text("New")])], into: Activity.table, as: Credentials(user))
        }
        #expect(drift?.code == .schemaDrift && drift?.serverError?.code == "42703" && drift?.httpStatus == 400)
        #expect(drift.flatMap { SchemaDrift($0.serverError!) } == SchemaDrift(table: "activities", column: "color"))
        let pullDrift = await #expect(throws: SyncError.self) {
            try await server.transport.pull(Activity.table, after: 0, limit: 10, as: Credentials(user))
        }
        #expect(pullDrift.flatMap { SchemaDrift($0.serverError!) } == SchemaDrift(table: "activities", column: "color"))
    }

    @Test func aRowThisClientCannotReadIsReportedAndTheRestOfThePageArrives() async throws {
        let server = try TestServer()
        let activity = UUID().uuidString.lowercased()
        let newer = UUID().uuidString.lowercased()
        // A newer server knows a source this client does not.
        try server.database.connect().execute(
            script: """
                alter table public.sessions drop constraint sessions_source_check;
                insert into public.sessions (id, user_id, activity_id, started_ms, ended_ms, source, updated_ms, device_id) values
                  (gen_random_uuid(), '\(user.uuidString)', '\(activity)', 1, 2, 'desktop', 1, 'd'),
                  ('\(newer)', '\(user.uuidString)', '\(activity)', 3, 4, 'tablet', 1, 'd'),
                  (gen_random_uuid(), '\(user.uuidString)', '\(activity)', 5, 6, 'watch', 1, 'd');
                """)
        let page = try await server.transport.pull(Session.table, after: 0, limit: 10, as: Credentials(user))
        #expect(page.receivedCount == 3 && page.rows.count == 2)
        #expect(page.undecodable.map(\.key) == [newer])
        #expect(page.undecodable.first?.reason.contains("source") == true)
        #expect(page.lastServerSeq == page.rows.compactMap { $0["server_seq"]?.int }.max())
    }

    @Test func aConnectionTheServerEndsIsReplacedByTheNextRequest() async throws {
        let server = try TestServer()
        _ = try await server.transport.pull(Activity.table, after: 0, limit: 1, as: Credentials(user))
        try server.database.connect().execute(
            "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")

        let lost = await #expect(throws: SyncError.self) {
            try await server.transport.pull(Activity.table, after: 0, limit: 1, as: Credentials(user))
        }
        // Transient either way: the connection's loss, or the server's 503 for a session it ended.
        #expect(lost?.code == .connectivity || lost?.httpStatus == 503)
        let page = try await server.transport.pull(Activity.table, after: 0, limit: 1, as: Credentials(user))
        #expect(page.receivedCount == 0)
    }

    @Test func anUnreachableDatabaseIsAConnectivityFailureWithoutThePassword() async throws {
        let transport = PostgresTransport(url: "postgresql://postgres:s3cret-word@127.0.0.1:1/app?connect_timeout=2")
        let error = await #expect(throws: SyncError.self) {
            try await transport.pull(Activity.table, after: 0, limit: 10, as: Credentials(user))
        }
        #expect(error?.code == .connectivity && error?.isNetworkFailure == true && error?.httpStatus == nil)
        #expect(error?.message.contains("s3cret") == false)
    }

    @Test(arguments: [
        ("23505", 409), ("23503", 409), ("42501", 403), ("P0001", 400), ("P0002", 500), ("40001", 500), ("40P01", 500),
        ("57014", 500), ("57P01", 503), ("53300", 503), ("42P01", 404), ("42883", 404), ("PT418", 418),
        ("23502", 400), ("23514", 400), ("22P02", 400), ("42703", 400), ("25006", 405),
    ])
    func sqlStatesMapToPostgRESTsStatus(sqlState: String, status: Int) {
        #expect(PostgresFailure.httpStatus(sqlState) == status)
    }
}
