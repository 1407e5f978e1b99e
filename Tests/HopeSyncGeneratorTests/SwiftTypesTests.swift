import Foundation
import HopeSyncGenerator
import Testing

/// Generated rows hold timestamps as `HopeSync.SyncTimestamp`, the version column as the
/// server's exact text, and `default: now` is the initializer's default.
@Suite struct SwiftTypesTests {
    @Test func timestampColumnsAreSyncTimestampsAndDefaultNowIsTheInitializersDefault() throws {
        let project = try ScratchProject()
        try project.writeSchema(
            """
            tables:
              notes:
                conflict: { mode: version, version: timestamp }
                columns:
                  body: text
                  written_at: { type: timestamp, default: now }
                  seen_at: { type: timestamp, nullable: true, default: now }
                  due_at: timestamp?
            """)
        #expect(project.run().status == 0)
        let swift = try #require(try project.generatedTree()["swift/Note.swift"])
        #expect(swift.contains("    public var writtenAt: HopeSync.SyncTimestamp\n"))
        #expect(swift.contains("        writtenAt: HopeSync.SyncTimestamp = HopeSync.SyncTimestamp.now,\n"))
        #expect(swift.contains("        seenAt: HopeSync.SyncTimestamp? = HopeSync.SyncTimestamp.now,\n"))
        #expect(swift.contains("        dueAt: HopeSync.SyncTimestamp? = nil,\n"))
        // The version: the exact text the guarded replay compares.
        #expect(swift.contains("        updatedAt: Swift.String? = nil,\n"))
        #expect(swift.contains(#"HopeSync.ColumnSchema("updated_at", .timestamp, role: .version)"#))
    }
}
