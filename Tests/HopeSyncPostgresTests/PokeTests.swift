import Foundation
import HopeSyncPostgresClient
import HopeSyncPostgresFixture
import Testing

/// The pokes the generated SQL sends through Supabase Realtime (Broadcast from Database): one
/// message per owner, table and transaction on the owner's private topic, naming the table and a
/// server_seq the write reached and nothing of the rows; row-level security on realtime.messages
/// lets a user join only their own topic. Without Realtime's schema every write works as before.
@Suite struct PokeTests {
    let alice = UUID()
    let bob = UUID()

    /// A database with Realtime's schema, then schema.sql.
    func realtimeServer() throws -> ServerDatabase {
        let database = try PostgresCluster.createDatabase()
        let connection = try database.connect()
        try connection.createRealtimeSchema()
        try connection.execute(script: try TestSchema.renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder))
        return ServerDatabase(database: database, connection: connection)
    }

    /// The pokes sent so far, oldest first: topic, table, server_seq, private.
    func pokes(_ server: ServerDatabase) throws -> [[String?]] {
        try server.connection.execute(
            """
            select topic, payload ->> 'table', payload ->> 'server_seq', private::text from realtime.messages
            where event = 'poke' order by inserted_at, payload ->> 'server_seq'
            """
        ).rows.map(\.values)
    }

    func highestSeq(_ server: ServerDatabase, _ table: String) throws -> String? {
        try server.connection.execute("select max(server_seq)::text from public.\(table)").scalar
    }

    @Test func aWritePokesItsOwnersTopicWithTheTableAndTheHighestServerSeq() throws {
        let server = try realtimeServer()
        try server.upsert(
            "sessions", as: alice,
            [session(UUID(), user: alice, start: 1, end: 2, updatedMs: 1), session(UUID(), user: alice, start: 3, end: 4, updatedMs: 1)])
        #expect(try pokes(server) == [["sync:\(alice.text)", "sessions", try highestSeq(server, "sessions"), "true"]])
        let payload = try #require(try server.connection.execute("select payload::text from realtime.messages").scalar)
        #expect(!payload.contains("started_ms") && !payload.contains(alice.text), "a poke carries no row data: \(payload)")
    }

    /// A device that announces its own push sends `X-Sync-Pokes: client` (PostgREST hands it to
    /// the triggers in request.headers): the database does not poke; any other header, an empty
    /// setting or none, and it does.
    @Test func aPushWhoseDeviceAnnouncesItIsNotPokedByTheDatabase() throws {
        let server = try realtimeServer()
        func write(headers: String?) throws {
            try server.connection.request(asUser: alice) { connection in
                if let headers { _ = try connection.execute("select set_config('request.headers', $1, true)", [headers]) }
                try ServerDatabase.upsert("sessions", [session(UUID(), user: alice, start: 1, end: 2, updatedMs: 1)], on: connection)
            }
        }
        try write(headers: #"{"x-sync-pokes":"client","accept":"application/json"}"#)
        #expect(try pokes(server).isEmpty)
        try write(headers: #"{"x-sync-pokes":"server"}"#)
        try write(headers: "")
        try write(headers: nil)
        #expect(try pokes(server).count == 3)
    }

    @Test func anUpsertThatInsertsAndUpdatesPokesOnce() throws {
        let server = try realtimeServer()
        let id = UUID()
        try server.upsert("sessions", as: alice, [session(id, user: alice, start: 1, end: 2, updatedMs: 1)])
        try server.upsert(
            "sessions", as: alice,
            [session(id, user: alice, start: 1, end: 5, updatedMs: 2), session(UUID(), user: alice, start: 6, end: 7, updatedMs: 2)])
        #expect(try pokes(server).count == 2)
    }

    @Test func aWriteThatChangesNothingOrRollsBackPokesNobody() throws {
        let server = try realtimeServer()
        let id = UUID()
        try server.upsert("sessions", as: alice, [session(id, user: alice, start: 1, end: 2, updatedMs: 5)])
        // An older write: the trigger discards it, no row is written.
        try server.upsert("sessions", as: alice, [session(id, user: alice, start: 1, end: 9, updatedMs: 4)])
        #expect(throws: PostgresError.self) {
            try server.connection.request(asUser: alice) { connection in
                try ServerDatabase.upsert("sessions", [session(UUID(), user: alice, start: 10, end: 11, updatedMs: 6)], on: connection)
                try connection.execute("select 1 / 0")
            }
        }
        #expect(try pokes(server).count == 1)
    }

    /// A job writing as service_role for several owners pokes each owner once, on their topic.
    @Test func aStatementWritingSeveralOwnersPokesEachOnce() throws {
        let server = try realtimeServer()
        try server.connection.request(as: .serviceRole) { connection in
            try ServerDatabase.upsert(
                "sessions",
                [
                    session(UUID(), user: alice, start: 1, end: 2, updatedMs: 1),
                    session(UUID(), user: bob, start: 1, end: 2, updatedMs: 1),
                    session(UUID(), user: alice, start: 3, end: 4, updatedMs: 1),
                ], on: connection)
        }
        #expect(try Set(pokes(server).map { $0[0] }) == ["sync:\(alice.text)", "sync:\(bob.text)"])
        #expect(try pokes(server).count == 2)
    }

    /// Realtime's check at join, as it runs it: a message of the topic inserted by the server,
    /// then read as the user with the topic set; the join is allowed when the user sees it.
    @Test func aUserMayJoinTheirOwnTopicOnly() throws {
        let server = try realtimeServer()
        func mayJoin(_ topic: String, as user: UUID?) throws -> Bool {
            try server.connection.transaction { connection in
                let id = try #require(
                    try connection.execute(
                        "insert into realtime.messages (topic, extension) values ($1, 'broadcast') returning id::text", [topic]
                    )
                    .scalar)
                let claims = user.map { #"{"role":"authenticated","sub":"\#($0.text)"}"# } ?? #"{"role":"anon"}"#
                try connection.execute(
                    "select set_config('role', $1, true), set_config('realtime.topic', $2, true), set_config('request.jwt.claims', $3, true)",
                    [user == nil ? "anon" : "authenticated", topic, claims])
                let seen = try connection.execute("select count(*) from realtime.messages where id = $1::uuid and topic = $2", [id, topic])
                    .scalar
                try connection.execute("rollback and chain")
                return seen == "1"
            }
        }
        #expect(try mayJoin("sync:\(alice.text)", as: alice))
        #expect(try !mayJoin("sync:\(bob.text)", as: alice))
        #expect(try !mayJoin("sync:\(alice.text)", as: nil))
    }

    /// Realtime keeps realtime.messages partitioned by day with no default partition: on a day
    /// without one (Realtime had not made it yet), realtime.send only warns. The write succeeds
    /// and nobody is poked; devices read the row at their next poll, as after any lost poke.
    @Test func onADayWithoutAPartitionTheWriteSucceedsWithoutAPoke() throws {
        let server = try realtimeServer()
        let today = try #require(try server.connection.execute("select 'messages_' || to_char(current_date, 'YYYY_MM_DD')").scalar)
        try server.connection.execute(script: "set role supabase_realtime_admin; drop table realtime.\(today); reset role;")
        _ = server.connection.takeNotices()
        try server.upsert("sessions", as: alice, [session(UUID(), user: alice, start: 1, end: 2, updatedMs: 1)])
        #expect(try server.connection.execute("select count(*) from public.sessions").scalar == "1")
        #expect(try pokes(server).isEmpty)
        let warnings = server.connection.takeNotices().filter { $0.severity == "WARNING" }
        #expect(warnings.contains { $0.message.hasPrefix("WarnSendingBroadcastMessage: no partition of relation") }, "\(warnings)")
    }

    /// Without Realtime's schema the poke does nothing: writes work, quietly.
    @Test func withoutRealtimeWritesWorkAndSayNothing() throws {
        let server = try ServerDatabase.make()
        _ = server.connection.takeNotices()
        try server.upsert("sessions", as: alice, [session(UUID(), user: alice, start: 1, end: 2, updatedMs: 1)])
        #expect(server.connection.takeNotices().isEmpty)
        #expect(try server.connection.execute("select to_regclass('realtime.messages') is null").scalar == "t")
    }

    /// schema.sql over a database with Realtime's schema: quiet, idempotent, and the policies are
    /// made; pasted again after Realtime arrives, it makes them then.
    @Test func schemaSQLMakesThePoliciesWhenRealtimeIsThereQuietlyAndOnce() throws {
        let sql = try TestSchema.renderer.schemaSQL(TestSchema.current, columnOrder: TestSchema.columnOrder)
        let policies =
            "select policyname, cmd, roles::text, coalesce(qual, ''), coalesce(with_check, '') from pg_policies where schemaname = 'realtime' order by 1"
        let server = try ServerDatabase.make()
        try server.connection.createRealtimeSchema()
        #expect(try server.connection.execute(policies).rows.isEmpty)
        _ = server.connection.takeNotices()
        try server.connection.execute(script: sql)
        let made = try server.connection.execute(policies).rows.map(\.values)
        #expect(made.map { $0[0] } == ["sync_pokes_read_own", "sync_pokes_send_own"])
        try server.connection.execute(script: sql)
        #expect(try server.connection.execute(policies).rows.map(\.values) == made)
        #expect(server.connection.takeNotices().isEmpty)
    }
}
