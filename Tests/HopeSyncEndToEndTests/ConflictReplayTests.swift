import Foundation
import HopeSchema
import HopeSyncModel
import Testing

@_spi(Transport) @testable import HopeSync

/// The replay's limits on the real generated SQL: the resolver's failures, the third send, bases
/// forwarded along queued edits and never moved by a pull, and a 5xx holding the writes behind it.
@Suite struct ConflictReplayTests {
    let user = UUID()

    struct ResolverBroke: Error {}

    func device(_ server: TestServer, _ recorder: RecordingTransport, resolver: ConflictResolver?, timeout: Duration = .seconds(30)) throws
        -> Device
    {
        var configuration = Device.configuration(resolver: resolver)
        configuration.resolverTimeout = timeout
        configuration.warn = { _ in }
        return try Device("a", user: user, transport: recorder, configuration: configuration)
    }

    /// A synced task edited to "Mine" on `device` and changed to "Theirs" by another device.
    func conflictedTask(_ server: TestServer, _ device: Device) async throws -> UUID {
        let id = UUID()
        try await device.save(TaskItem(id: id, title: "Buy milk"))
        try await device.sync()
        try await device.edit(.tasks, id, ColumnValues(["title": .text("Mine")]))
        try server.asUser(user, "update public.tasks set title = 'Theirs' where id = $1", [id.uuidString.lowercased()])
        return id
    }

    @Test func aResolverThatThrowsOrTakesTooLongHoldsTheWrite() async throws {
        for resolver in [
            { _ in throw ResolverBroke() },
            { _ in
                try await Task.sleep(for: .seconds(5))
                return .keepLocal
            },
        ] as [ConflictResolver] {
            let server = try TestServer()
            let recorder = RecordingTransport(base: server.transport)
            let device = try device(server, recorder, resolver: resolver, timeout: .milliseconds(100))
            let id = try await conflictedTask(server, device)
            let report = try await device.sync()
            #expect(report.conflicted.map(\.rowID) == [id] && report.synced == 0)
            #expect(try device.row(.tasks, id)?["title"] == .text("Theirs"))
            #expect(try await server.rows(of: TaskItem.table, for: user)[id.uuidString.lowercased()]?["title"] == .text("Theirs"))
        }
    }

    @Test func aRowThatKeepsMovingIsParkedAfterTheThirdSend() async throws {
        let server = try TestServer()
        let recorder = RecordingTransport(base: server.transport)
        let asked = AskedConflicts()
        let device = try device(
            server, recorder,
            resolver: { conflict in
                asked.record(conflict)
                try server.asUser(user, "update public.tasks set title = title || '+' where id = $1", [conflict.rowKey["id"]])
                return .keepLocal
            })
        let id = try await conflictedTask(server, device)
        recorder.clear()
        let report = try await device.sync()
        #expect(recorder.sends.count == 3 && asked.all.count == 2)
        let entry = try #require(report.conflicted.first)
        #expect(entry.rowID == id && entry.server?["title"] == .text("Theirs++"))
    }

    @Test func editsQueuedOneAfterAnotherReplayWithoutAConflict() async throws {
        let server = try TestServer()
        let recorder = RecordingTransport(base: server.transport)
        let asked = AskedConflicts()
        let device = try device(
            server, recorder,
            resolver: {
                asked.record($0)
                return .hold
            })
        let id = UUID()
        try await device.save(TaskItem(id: id, title: "Buy milk"))
        try await device.sync()
        try await device.edit(.tasks, id, ColumnValues(["title": .text("Buy oat milk")]))
        try await device.edit(.tasks, id, ColumnValues(["title": .text("Buy oat milk, 2 l"), "done": .bool(true)]))
        recorder.clear()
        let report = try await device.sync()
        #expect(report.synced == 2 && asked.all.isEmpty && recorder.reads.isEmpty)
        let sends = recorder.sends
        #expect(sends.count == 2 && sends[1].baseVersion == sends[0].answer.first?["updated_at"]?.versionText)
    }

    @Test func aPulledRowDoesNotMoveABase() async throws {
        let server = try TestServer()
        let recorder = RecordingTransport(base: server.transport)
        let asked = AskedConflicts()
        let device = try device(
            server, recorder,
            resolver: {
                asked.record($0)
                return .keepLocal
            })
        let id = try await conflictedTask(server, device)
        let base = try #require(try device.store.pendingMutations().first?.baseVersion)
        let page = try await server.transport.pull(TaskItem.table, after: 0, limit: 100, as: Credentials(user))
        _ = try device.store.apply(page, to: TaskItem.table)
        #expect(try device.store.pendingMutations().first?.baseVersion == base)
        #expect(try device.row(.tasks, id)?["title"] == .text("Mine"))
        #expect(try device.row(.tasks, id)?["updated_at"]?.versionText != base)
        let report = try await device.sync()
        #expect(asked.all.first?.conflictingColumns == ["title"] && report.conflictsResolved == 1)
    }

    @Test func aWriteRefusedWith5xxHoldsTheWritesBehindItUntilDiscarded() async throws {
        let server = try TestServer()
        let recorder = RecordingTransport(base: server.transport)
        let device = try device(server, recorder, resolver: nil)
        let (first, second) = (UUID(), UUID())
        try await device.save(TaskItem(id: first, title: "Buy milk"))
        try await device.save(TaskItem(id: second, title: "Call mum"))
        try await device.sync()
        try await device.edit(.tasks, first, ColumnValues(["title": .text("Unavailable")]))
        try await device.edit(.tasks, second, ColumnValues(["title": .text("Call mum back")]))
        try server.asOwner(
            script: """
                create function public.refuse_unavailable() returns trigger language plpgsql as $$
                begin
                  if new.title = 'Unavailable' then raise exception 'try later' using errcode = 'PT503'; end if;
                  return new;
                end $$;
                create trigger refuse_unavailable before update on public.tasks for each row execute function public.refuse_unavailable();
                """)
        recorder.clear()
        let error = await #expect(throws: SyncError.self) { try await device.sync() }
        #expect(error?.code == .syncFailed && error?.httpStatus == 503)
        #expect(error?.message.contains(first.uuidString.lowercased()) == false)
        #expect(recorder.sends.map(\.id) == [first])
        let held = try #require(try device.store.pendingMutations().first)
        try device.store.discardPendingMutation(id: held.id)
        let report = try await device.sync()
        #expect(report.synced == 1)
        let rows = try await server.rows(of: TaskItem.table, for: user)
        #expect(rows[second.uuidString.lowercased()]?["title"] == .text("Call mum back"))
        #expect(rows[first.uuidString.lowercased()]?["title"] == .text("Buy milk"))
        #expect(try device.row(.tasks, first)?["title"] == .text("Buy milk"))
    }
}
