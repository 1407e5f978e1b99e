import Foundation
import HopeSyncGenerator
import HopeSyncSchema
import Testing

/// One change has one shape: the diff finds it, the migration applies it, the snapshot records
/// it by name and `verify` reads that record back as the same change.
@Suite struct SchemaChangeTests {
    static let rowMerge = """
        tables:
          notes:
            merge: row
            columns:
              body: text
            indexes:
              - { name: notes_body_idx, columns: [body] }
        """

    @Test func aRecordedChangeReadsBackAsTheSameChange() throws {
        let table = try parse(Self.rowMerge).schema.tables[0]
        let schema = Schema(tables: [table])
        let changes: [SchemaChange] = [
            .createTable(table), .addColumn(table.syncedColumns[2], to: table), .addIndex(table.indexes[0], on: table),
            .replaceTriggers(table),
        ]
        for change in changes {
            #expect(SchemaChange(recorded: change.recorded, in: schema) == change, "\(change.recorded)")
        }
        #expect(changes.map(\.recorded) == ["table notes", "column notes.body", "index notes.notes_body_idx", "triggers notes"])
        #expect(SchemaChange(recorded: "column notes.missing", in: schema) == nil)
        #expect(SchemaChange(recorded: "table elsewhere", in: schema) == nil)
    }

    /// Starting to merge columns is two changes of the one kind, each made once: the stamps
    /// column (both databases) and the server's triggers.
    @Test func startingToMergeColumnsAddsTheStampsAndRewritesTheTriggersOnce() throws {
        let first = try generate(Self.rowMerge)
        let second = try generate(Self.rowMerge.replacingOccurrences(of: "merge: row", with: "merge: column"), existing: first.tree)
        let migration = try #require(second.newMigration)
        let table = migration.schema.tables[0]
        #expect(migration.name == "notes_add_column_stamps")
        #expect(migration.changes == [.addColumn(SyncedColumn(.columnStamps), to: table), .replaceTriggers(table)])
        #expect(second.snapshot.migrations.last?.changes == ["column notes.column_stamps", "triggers notes"])
    }
}
