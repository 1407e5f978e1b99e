import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import Testing

/// Seed 000's running example on the real generated SQL, with the server's own stamps: tasks
/// (moddatetime on updated_at) and task_lists (an integer version bumped by a trigger).
@Suite struct ConflictWorkedExampleTests {
    let user = UUID()

    @Test(arguments: [VersionedTable.tasks, .taskLists])
    func twoPhonesOneRow(_ kind: VersionedTable) async throws {
        let server = try TestServer()
        let recorder = RecordingTransport(base: server.transport)
        let holdText: ConflictResolver = { conflict in
            conflict.conflictingColumns.contains(kind.text) ? .hold : .default(for: conflict)
        }
        let phoneA = try Device("phone-a", user: user, transport: recorder, configuration: Device.configuration(resolver: holdText))
        let phoneB = try Device("phone-b", user: user, transport: server.transport)

        // 1. Phone A's row, stamped T1 by the server; offline, A renames it and sets `other`.
        let id = UUID()
        try await phoneA.save(kind.newRow(id, "Buy milk"))
        try await phoneA.sync()
        let t1 = try #require(try phoneA.row(kind, id)?[kind.version]?.versionText)
        try await phoneB.sync()
        await phoneA.engine.setNetworkEnabled(false)
        let mine = ColumnValues(columns: [kind.text, kind.other], values: [.text("Buy oat milk"), kind.otherValue])
        try await phoneA.edit(kind, id, mine)
        #expect(try phoneA.store.pendingMutations().map(\.baseVersion) == [t1])

        // 2. Phone B renames it too and sets the same `other`: the trigger moves the version to T2.
        try await phoneB.edit(
            kind, id, ColumnValues(columns: [kind.text, kind.other], values: [.text("Buy almond milk"), kind.otherValue]))
        try await phoneB.sync()
        let t2 = try #require(try phoneB.row(kind, id)?[kind.version]?.versionText)
        #expect(t2 != t1)

        // 3. The preconditioned PATCH, and its empty answer.
        await phoneA.engine.setNetworkEnabled(true)
        let report = try await phoneA.sync()
        let send = try #require(recorder.sends.first)
        #expect(recorder.sends.count == 1)
        #expect(send.id == id && send.baseVersion == t1 && send.filters.isEmpty)
        #expect(send.returning == ["id", kind.version, kind.text, kind.other])
        #expect(send.values == mine)
        #expect(send.answer.isEmpty)

        // 4. The read by key finds the row at T2.
        let read = try #require(recorder.reads.first)
        #expect(recorder.reads.count == 1)
        // Both tables are shared: it also asks whose write the row holds (phone B's user's own).
        #expect(read.id == id && read.columns == ["id", kind.version, kind.text, kind.other, "deleted_ms", "updated_by"])
        #expect(read.answer?["updated_by"]?.text == user.uuidString.lowercased())
        #expect(read.answer?[kind.version]?.versionText == t2 && read.answer?[kind.text] == .text("Buy almond milk"))

        // 5. Both columns changed on the server, only the text conflicts: held and parked.
        let entry = try #require(report.conflicted.first)
        #expect(entry.changedOnServer == [kind.text, kind.other] && entry.conflictingColumns == [kind.text])
        #expect(entry.serverVersion == t2 && entry.body == mine)
        #expect(entry.base[kind.version]?.versionText == t1 && entry.base[kind.text] == .text("Buy milk"))
        #expect(report.synced == 0 && report.conflictsResolved == 0 && report.conflictsKeptServer == 0)
        let parked = try #require(try phoneA.row(kind, id))
        #expect(parked[kind.text] == .text("Buy almond milk") && parked[kind.version]?.versionText == t1)

        // 7. Keep mine: sent preconditioned on T2, landing at T3.
        recorder.clear()
        try phoneA.store.resolveConflictedMutation(id: entry.id, resolution: .keepLocal)
        let kept = try await phoneA.sync()
        let resend = try #require(recorder.sends.first)
        #expect(resend.baseVersion == t2 && resend.values == mine)
        let t3 = try #require(resend.answer.first?[kind.version]?.versionText)
        #expect(t3 != t2 && recorder.reads.isEmpty)
        #expect(kept.synced == 1 && kept.conflictsResolved == 0 && kept.conflicted.isEmpty)
        let landed = try #require(try phoneA.row(kind, id))
        #expect(landed[kind.text] == .text("Buy oat milk") && landed[kind.version]?.versionText == t3)
        try await phoneB.sync()
        #expect(try phoneB.row(kind, id)?[kind.text] == .text("Buy oat milk"))
        #expect(try await server.rows(of: kind.table, for: user)[id.uuidString.lowercased()]?[kind.version]?.versionText == t3)
        if kind.table.name == "task_lists" { #expect([t1, t2, t3] == ["1", "2", "3"]) }
    }
}
