import Foundation
import HopeSchema
import HopeSync
import HopeSyncTestSupport
import Testing

/// Seed 000's outcome table and its three quiet cases on the real generated SQL. Other devices
/// are real devices or SQL run as the user; policies are restrictive policies added by the test.
@Suite struct ConflictOutcomeTests {
    let user = UUID()

    /// A server, phone A (recorded, with `resolver`) holding one synced row, and phone B.
    struct Scene {
        let server: TestServer
        let recorder: RecordingTransport
        let a: Device
        let b: Device
        let id: UUID
        let kind: VersionedTable
        let asked: AskedConflicts

        var key: String { id.uuidString.lowercased() }

        func serverRow() async throws -> ColumnValues? {
            try await server.rows(of: kind.table, for: a.user)[key]
        }
    }

    func scene(_ kind: VersionedTable = .tasks, resolver: ConflictResolver? = nil) async throws -> Scene {
        let server = try TestServer()
        let recorder = RecordingTransport(base: server.transport)
        let asked = AskedConflicts()
        let settle: ConflictResolver = { conflict in
            asked.record(conflict)
            return try await resolver?(conflict) ?? .default(for: conflict)
        }
        let a = try Device("a", user: user, transport: recorder, configuration: Device.configuration(resolver: settle))
        let b = try Device("b", user: user, transport: server.transport)
        let id = UUID()
        try await a.save(kind.newRow(id, "Buy milk"))
        try await a.sync()
        try await b.sync()
        recorder.clear()
        return Scene(server: server, recorder: recorder, a: a, b: b, id: id, kind: kind, asked: asked)
    }

    // MARK: Quiet cases

    @Test(arguments: [VersionedTable.tasks, .taskLists])
    func quietCases(_ kind: VersionedTable) async throws {
        // Phone B only changed the other column: resent at its version without the resolver.
        let ticked = try await scene(kind)
        try await ticked.a.edit(kind, ticked.id, ColumnValues(columns: [kind.text], values: [.text("Buy oat milk")]))
        try await ticked.b.edit(kind, ticked.id, ColumnValues(columns: [kind.other], values: [kind.otherValue]))
        try await ticked.b.sync()
        let first = try await ticked.a.sync()
        #expect(first.synced == 1 && first.alreadyOnServer == 0 && ticked.asked.all.isEmpty)
        #expect(ticked.recorder.sends.count == 2 && ticked.recorder.reads.count == 1)
        let both = try #require(try await ticked.serverRow())
        #expect(both[kind.text] == .text("Buy oat milk") && both[kind.other] == kind.otherValue)

        // The first send landed and its answer was lost: already on the server.
        let lost = try await scene(kind)
        try await lost.a.edit(kind, lost.id, ColumnValues(columns: [kind.text], values: [.text("Buy oat milk")]))
        lost.recorder.loseNextAnswer()
        await #expect { try await lost.a.sync() } throws: { ($0 as? SyncError)?.isNetworkFailure == true }
        let second = try await lost.a.sync()
        #expect(second.synced == 1 && second.alreadyOnServer == 1 && lost.asked.all.isEmpty)
        #expect(try lost.a.row(kind, lost.id)?[kind.version] == (try await lost.serverRow())?[kind.version])

        // Phone B deleted it: asked with server nil, kept server (the default), the row leaves A's list.
        let deleted = try await scene(kind)
        try await deleted.a.edit(kind, deleted.id, ColumnValues(columns: [kind.text], values: [.text("Buy oat milk")]))
        try await deleted.b.delete(kind, deleted.id)
        try await deleted.b.sync()
        let third = try await deleted.a.sync()
        if kind.table.scope?.kind == .scope {
            // A deleted list is read by nobody after (its memberships ended): not a conflict but
            // access that ended; the list leaves A and the edit is on the rejected list, saying so.
            #expect(third.conflictsKeptServer == 0 && third.synced == 0 && deleted.asked.all.isEmpty)
            #expect(try deleted.a.row(kind, deleted.id) == nil)
            let rejected = try deleted.a.store.rejectedMutations()
            #expect(rejected.count == 1 && rejected.first?.message.contains("ended") == true)
        } else {
            #expect(third.conflictsKeptServer == 1 && third.synced == 0)
            #expect(deleted.asked.all.count == 1 && deleted.asked.all.first?.server == nil)
            #expect(try deleted.a.row(kind, deleted.id)?["deleted_ms"] != .null)
            #expect(try await deleted.serverRow()?[kind.text] == .text("Buy milk"))
        }
    }

    /// A new row's push whose answer was lost, then Phone B's edits, then Phone A's retry: the
    /// retried insert changes nothing on the server (the trigger keeps the stored row), A ends
    /// with the server's row, and what A had written after its first push is on its rejected
    /// list rather than gone.
    @Test(arguments: [VersionedTable.tasks, .taskLists])
    func aRetriedInsertNeverUndoesWhatFollowed(_ kind: VersionedTable) async throws {
        let server = try TestServer()
        let recorder = RecordingTransport(base: server.transport)
        let a = try Device("a", user: user, transport: recorder)
        let b = try Device("b", user: user, transport: server.transport)
        let id = UUID()
        let key = id.uuidString.lowercased()
        try await a.save(kind.newRow(id, "Buy milk"))
        recorder.loseNextPushAnswer()
        await #expect { try await a.sync() } throws: { ($0 as? SyncError)?.isNetworkFailure == true }
        try await b.sync()
        try await b.edit(kind, id, ColumnValues(columns: [kind.text], values: [.text("Buy oat milk")]))
        try await b.sync()
        // Unsynced still, as far as A knows: its edit joins the row it pushes again.
        try await a.edit(kind, id, ColumnValues(columns: [kind.other], values: [kind.otherValue]))
        try await a.sync()

        let held = try #require(try await server.rows(of: kind.table, for: user)[key])
        #expect(held[kind.text] == .text("Buy oat milk"))
        #expect(held[kind.other] != kind.otherValue)
        #expect(try a.row(kind, id)?[kind.text] == .text("Buy oat milk"))
        #expect(try a.dirtyCount() == 0)
        let rejected = try a.store.rejectedMutations()
        #expect(rejected.count == 1 && rejected.first?.isRetryable == false)
        #expect(rejected.first?.body?[kind.other] == kind.otherValue)
    }

    // MARK: UPDATE

    @Test func anUpdateMeetsEachOutcome() async throws {
        // No connection for the read: the pass stops, the write stays.
        let offline = try await scene()
        try await offline.a.edit(.tasks, offline.id, ColumnValues(["title": .text("Mine")]))
        try await offline.b.edit(.tasks, offline.id, ColumnValues(["notes": .text("theirs")]))
        try await offline.b.sync()
        offline.recorder.readsFail = true
        await #expect { try await offline.a.sync() } throws: { ($0 as? SyncError)?.code == .connectivity }
        #expect(try offline.a.store.pendingMutations().count == 1)

        // Gone: hard-deleted on the server; the default keeps the server, nothing is recreated.
        let gone = try await scene()
        try await gone.a.edit(.tasks, gone.id, ColumnValues(["title": .text("Mine")]))
        try gone.server.asOwner("delete from public.tasks where id = $1", [gone.key])
        let goneReport = try await gone.a.sync()
        #expect(goneReport.conflictsKeptServer == 1 && gone.asked.all.first?.server == nil)
        #expect(try gone.a.row(.tasks, gone.id) == nil && gone.server.count(of: "tasks") == 0)

        // Hidden by a policy: looks gone.
        let hidden = try await scene()
        try await hidden.a.edit(.tasks, hidden.id, ColumnValues(["title": .text("Mine")]))
        try hidden.server.asOwner(
            "create policy tasks_hide on public.tasks as restrictive for select to authenticated using (title <> 'Buy milk')")
        let hiddenReport = try await hidden.a.sync()
        #expect(hiddenReport.conflictsKeptServer == 1 && hidden.recorder.reads.first?.answer == nil)

        // At the base version, still meeting the filter: a policy denied it.
        let denied = try await scene()
        try await denied.a.edit(.tasks, denied.id, ColumnValues(["title": .text("Mine")]))
        try denied.server.asOwner(
            "create policy tasks_lock on public.tasks as restrictive for update to authenticated using (title <> 'Buy milk')")
        let deniedReport = try await denied.a.sync()
        #expect(deniedReport.rejected == 1 && denied.recorder.sends.count == 1)
        let rejected = try #require(try denied.a.store.rejectedMutations().first)
        #expect(rejected.serverError == nil && rejected.operation == .update && rejected.isRetryable)

        // Moved: a conflict, kept local column by column by the default.
        let moved = try await scene()
        try await moved.a.edit(.tasks, moved.id, ColumnValues(["title": .text("Mine")]))
        try moved.server.asUser(user, "update public.tasks set title = 'Theirs', notes = 'n' where id = $1", [moved.key])
        let movedReport = try await moved.a.sync()
        #expect(movedReport.synced == 1 && movedReport.conflictsResolved == 1)
        #expect(moved.asked.all.first?.changedOnServer == ["title"] && moved.asked.all.first?.conflictingColumns == ["title"])
        let merged = try #require(try await moved.serverRow())
        #expect(merged["title"] == .text("Mine") && merged["notes"] == .text("n"))
    }

    // MARK: DELETE

    @Test func aDeleteMeetsEachOutcome() async throws {
        // Already gone: synced, counted as already on the server.
        let gone = try await scene()
        try await gone.a.delete(.tasks, gone.id)
        try gone.server.asOwner("delete from public.tasks where id = $1", [gone.key])
        let goneReport = try await gone.a.sync()
        #expect(goneReport.synced == 1 && goneReport.alreadyOnServer == 1)
        let send = try #require(gone.recorder.sends.first)
        #expect(
            send.filters == [Filter("deleted_ms", .isNull)] && send.returning == ["id", "updated_at"]
                && send.values.columns == ["deleted_ms"])

        // Deleted elsewhere: no longer meets `deleted_ms is null`; synced, already on the server.
        let twice = try await scene()
        try await twice.a.delete(.tasks, twice.id)
        try await twice.b.delete(.tasks, twice.id)
        try await twice.b.sync()
        let twiceReport = try await twice.a.sync()
        #expect(twiceReport.synced == 1 && twiceReport.alreadyOnServer == 1 && twice.asked.all.isEmpty)

        // A policy denied it: the rejected list.
        let denied = try await scene()
        try await denied.a.delete(.tasks, denied.id)
        try denied.server.asOwner(
            "create policy tasks_lock on public.tasks as restrictive for update to authenticated using (title <> 'Buy milk')")
        let deniedReport = try await denied.a.sync()
        #expect(deniedReport.rejected == 1)
        #expect(try denied.a.store.rejectedMutations().first?.operation == .delete)

        // Moved: always a conflict, local nil and empty sets; the default deletes it.
        let moved = try await scene()
        try await moved.a.delete(.tasks, moved.id)
        try moved.server.asUser(user, "update public.tasks set title = 'Theirs' where id = $1", [moved.key])
        let movedReport = try await moved.a.sync()
        let conflict = try #require(moved.asked.all.first)
        #expect(
            conflict.operation == .delete && conflict.local == nil && conflict.changedOnServer.isEmpty
                && conflict.conflictingColumns.isEmpty)
        #expect(movedReport.synced == 1 && movedReport.conflictsResolved == 1)
        #expect(try await moved.serverRow()?["deleted_ms"] != .null)
    }
}

/// The conflicts a resolver was shown.
final class AskedConflicts: Sendable {
    private let seen = Locked<[MutationConflict]>([])

    func record(_ conflict: MutationConflict) { seen.withLock { $0.append(conflict) } }
    var all: [MutationConflict] { seen.value }
}
