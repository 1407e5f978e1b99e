import HopeSyncSchema

/// A column's backfill as the server runs it (decision 0053): once per database, in the
/// migration that adds the column and in schema.sql, named in `public.sync_backfills`.
package struct Backfill: Equatable, Sendable {
    /// The table as the schema has it (its merge decides how the write is stamped).
    package var table: Table
    package var column: Column
    /// The migration that added the column and ran the backfill.
    package var migration: Int

    /// Its row in `public.sync_backfills`, the same in the migration and in schema.sql:
    /// `habits.initial@4`.
    package var name: String { "\(table.name).\(column.name)@\(migration)" }

    /// How the snapshot records it among the migration's changes.
    var record: String { SchemaChange.backfillRecord(table.name, column.name) }

    /// Every backfill of `schema` a migration of `migrations` recorded (a column on the server
    /// still: not a retired one), in table and column order: what schema.sql runs.
    package static func all(in schema: Schema, recordedIn migrations: [Snapshot.Entry]) -> [Backfill] {
        schema.tables.flatMap { table in
            table.columns.compactMap { column -> Backfill? in
                guard column.backfill != nil else { return nil }
                let record = SchemaChange.backfillRecord(table.name, column.name)
                guard let number = migrations.first(where: { $0.changes.contains(record) })?.number else { return nil }
                return Backfill(table: table, column: column, migration: number)
            }
        }
    }

    /// `table` with the backfills `shipped` ran that schema.yaml no longer says: the snapshot
    /// keeps them, so schema.sql keeps running them over a server from before.
    static func carried(_ table: Table, from shipped: Table?) -> Table {
        var carried = table
        for index in carried.columns.indices where carried.columns[index].backfill == nil {
            carried.columns[index].backfill = shipped?.column(named: carried.columns[index].name)?.backfill
        }
        return carried
    }
}

extension Migration {
    /// The backfills of the columns this migration adds, run after all its changes (the
    /// tables' triggers are then as this migration leaves them).
    package var backfills: [Backfill] {
        changes.compactMap { change in
            guard case .addColumn(let added, let table) = change, added.role == .user,
                let column = table.column(named: added.name), column.backfill != nil
            else { return nil }
            return Backfill(table: table, column: column, migration: number)
        }
    }
}
