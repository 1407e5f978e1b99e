import Foundation
import SyncGenerator
import Testing

/// Generated rows hold timestamps as `SyncRuntime.SyncTimestamp`, the version column as the
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
        #expect(swift.contains("    public var writtenAt: SyncRuntime.SyncTimestamp\n"))
        #expect(swift.contains("        writtenAt: SyncRuntime.SyncTimestamp = SyncRuntime.SyncTimestamp.now,\n"))
        #expect(swift.contains("        seenAt: SyncRuntime.SyncTimestamp? = SyncRuntime.SyncTimestamp.now,\n"))
        #expect(swift.contains("        dueAt: SyncRuntime.SyncTimestamp? = nil,\n"))
        // The version: the exact text the guarded replay compares.
        #expect(swift.contains("        updatedAt: Swift.String? = nil,\n"))
        #expect(swift.contains(#"SyncRuntime.ColumnSchema("updated_at", .timestamp, role: .version)"#))
    }
}
