import Foundation
import HopeSchema
import HopeSync
import HopeSyncModel
import Testing

/// A scope's membership table is the server's to write (decision 0048): a device that saved a
/// row of it would keep an edit no push ever sends, so the store refuses it at once. The
/// project's own generated membership table, `task_lists_members`.
@Suite struct ServerWrittenTableTests {
    @Test func aLocalWriteToAMembershipTableIsRefusedAndNothingWaitsToBePushed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("members-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let user = UUID()
        let store = try SyncStore(path: path, schema: GeneratedSchema.app, userID: user)
        let member = TaskListMember(scopeId: UUID(), userId: UUID(), role: .editor, addedBy: user, addedAt: .now)
        for write in [
            { (tx: StoreWriter) in _ = try tx.save(member) },
            { tx in _ = try tx.delete(TaskListMember.self, id: member.id) },
            { tx in _ = try tx.update(TaskListMember.self, id: member.id) { $0.role = .owner } },
        ] {
            do {
                try store.write(write)
                Issue.record("a local write to task_lists_members was taken")
            } catch let error as SyncError {
                #expect(error.code == .invalidRequest)
                #expect(error.message.contains("task_lists_members is written by the server alone"))
            }
        }
        #expect(try store.read { try $0.dirtyCount() } == 0)
        #expect(try store.read { try $0.fetchAll(TaskListMember.self) }.isEmpty)
    }
}
