import Foundation
import HopeSchema
import HopeSync
import HopeSyncGenerator
import HopeSyncModel
import HopeSyncTestSupport
import HopeSyncVerify
import Testing

/// The forgotten paste: the server lacks a column the client has. Every push of that table is
/// refused (42703, PostgREST's PGRST204), reported as schema drift naming the column, retried
/// only at the backoff ceiling; once the generated SQL is applied, the next sync sends
/// everything that waited.
@Suite struct SchemaDriftTests {
    @Test func aMissingColumnIsReportedAsDriftAndRetriedSlowlyUntilTheMigrationIsApplied() async throws {
        let server = try TestServer()
        try server.database.connect().execute("alter table public.sessions drop column note")
        let user = UUID()
        let sleeper = ManualSleeper()
        var configuration = SyncConfiguration()
        configuration.sleep = sleeper.sleep
        let ceiling = configuration.backoffCeiling
        let transport = CountingTransport(server.transport)
        let phone = try Device("phone", user: user, transport: transport, configuration: configuration)
        let work = try await phone.store.write { try $0.save(Activity(name: "Work")) }
        let session = try await phone.store.write {
            try $0.save(Session(activityId: work.id, startedMs: 1_000, endedMs: 2_000, note: "Kept while the server lags"))
        }

        await phone.engine.start()
        #expect(await sleeper.waitUntilSleeping(ceiling))
        let status = await phone.engine.status
        #expect(status.phase == .schemaDrift(SchemaDrift(table: "sessions", column: "note")))
        #expect(status.lastError?.code == .schemaDrift)
        #expect(status.lastError?.serverError?.code == "42703" && status.lastError?.httpStatus == 400)
        // The engine waits the ceiling, not the poll interval or a short backoff.
        #expect(sleeper.pending == [ceiling])
        let attempts = transport.upserts(into: "sessions")
        #expect(attempts == 1)

        // Each ceiling that passes brings exactly one more attempt.
        for round in 1...2 {
            sleeper.elapse(ceiling)
            #expect(await eventually { transport.upserts(into: "sessions") == attempts + round })
            #expect(await sleeper.waitUntilSleeping(ceiling))
            #expect(sleeper.pending == [ceiling])
            #expect(transport.upserts(into: "sessions") == attempts + round)
        }
        // Rows of other tables were not held up.
        #expect(try await server.rows(of: Activity.table, for: user).count == 1)

        // `generate-verify` names the same column and the SQL that fixes it.
        let (console, transcript) = GenerateCommand.Console.recording()
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("schema.yaml").path
        let verify = VerifyCommand(console: console).run(["--database-url", server.database.url, "--schema", schema])
        #expect(verify == 1)
        #expect(transcript.out.contains("alter table public.sessions add column if not exists note text;"))

        // The migration is applied (schema.sql re-adds the column); the next attempt succeeds.
        try server.applySchema()
        sleeper.elapse(ceiling)
        #expect(await sleeper.waitUntilSleeping(configuration.pollInterval))
        #expect(await phone.engine.status.phase == .idle)
        #expect(await phone.engine.status.lastError == nil)
        #expect(try phone.dirtyCount() == 0)
        let pushed = try await server.rows(of: Session.table, for: user)[session.id.uuidString.lowercased()]
        #expect(pushed?["note"] == .text("Kept while the server lags"))
        #expect(try await phone.rows(of: Session.table) == server.rows(of: Session.table, for: user))
        await phone.engine.stop()
    }
}
