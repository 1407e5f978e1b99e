import Foundation
import HopeSync
import HopeSyncModel
import Testing

/// A scope's membership table is the server's to write (decision 0048): a device that saved a
/// row of it would keep an edit no push ever sends, so the store refuses it at once.
@Suite struct ServerWrittenTableTests {
    struct Member: SyncRecord {
        var id = UUID()
        var scopeId = UUID()
        var userId = UUID()
        var role = "editor"
        var addedBy = UUID()
        var addedAt = "2026-12-03T10:00:00+00:00"
        var deletedMs: Int64?
        var serverSeq: Int64?

        enum CodingKeys: String, CodingKey {
            case id, role
            case scopeId = "scope_id"
            case userId = "user_id"
            case addedBy = "added_by"
            case addedAt = "added_at"
            case deletedMs = "deleted_ms"
            case serverSeq = "server_seq"
        }

        static let table = TableSchema(
            name: "lists_members",
            columns: [
                ColumnSchema("id", .uuid, role: .id),
                ColumnSchema("scope_id", .uuid),
                ColumnSchema("user_id", .uuid),
                ColumnSchema("role", .enumeration(["owner", "editor", "viewer"])),
                ColumnSchema("added_by", .uuid),
                ColumnSchema("added_at", .timestamp),
                ColumnSchema("deleted_ms", .int, nullable: true, role: .deletedMs),
                ColumnSchema("server_seq", .int, nullable: true, role: .serverSeq),
            ],
            conflict: .version(.integer),
            ordering: .exact,
            scope: .membership(of: "lists", table: "lists_members")
        )
    }

    static let schema = AppSchema(
        tables: [Member.table],
        migrations: [
            LocalMigration(
                version: 1, name: "initial",
                sql: """
                    CREATE TABLE lists_members (
                        id TEXT PRIMARY KEY NOT NULL, scope_id TEXT NOT NULL, user_id TEXT NOT NULL,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), added_by TEXT NOT NULL,
                        added_at TEXT NOT NULL, deleted_ms INTEGER, server_seq INTEGER, _dirty INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        ])

    @Test func aLocalWriteToAMembershipTableIsRefusedAndNothingWaitsToBePushed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("members-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SyncStore(path: path, schema: Self.schema, userID: UUID())
        let member = Member()
        for write in [
            { (tx: StoreWriter) in _ = try tx.save(member) },
            { tx in _ = try tx.delete(Member.self, id: member.id) },
            { tx in _ = try tx.update(Member.self, id: member.id) { $0.role = "owner" } },
        ] {
            do {
                try store.write(write)
                Issue.record("a local write to lists_members was taken")
            } catch let error as SyncError {
                #expect(error.code == .invalidRequest)
                #expect(error.message.contains("lists_members is written by the server alone"))
            }
        }
        #expect(try store.read { try $0.dirtyCount() } == 0)
        #expect(try store.read { try $0.fetchAll(Member.self) }.isEmpty)
    }
}
