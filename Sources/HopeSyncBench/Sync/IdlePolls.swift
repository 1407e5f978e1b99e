import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres

/// Idle polls (nothing changed), a device at the head of every table: the rows and bytes each
/// table's pull sends with a 50-row lookback against exact ordering, and what an idle poll
/// cycle over every table costs.
enum IdlePolls {
    static func run(_ database: BenchDatabase, directory: URL) async throws -> [Figure] {
        let exact = try await syncedDevice(database, ordering: .exact, directory: directory)
        let lookback = try await syncedDevice(database, ordering: .lookback(50), directory: directory)
        defer { for device in [exact, lookback] { device.store.close() } }
        print("\nidle poll per table (nothing changed), a device at the head of every table:")
        print("table          exact rows  exact bytes  lookback-50 rows  lookback-50 bytes")
        var exactRows = 0
        for table in GeneratedSchema.tables {
            // The device has every row: its cursor is the table's largest server_seq.
            let cursor = try database.integer("select max(\(ReservedColumn.serverSeq)) from public.\(table.name)")
            let head = try await poll(table, after: cursor, database)
            let behind = try await poll(table, after: max(0, cursor - 50), database)
            exactRows += head.rows
            print(table.name.padded(13) + String(format: "  %10d  %11d  %16d  %17d", head.rows, head.bytes, behind.rows, behind.bytes))
        }
        print("(bytes: the body PostgREST would send, json_agg of the same select, measured on the server)")

        print(
            "\nidle poll cycle over all \(GeneratedSchema.tables.count) tables (engine.syncNow(): push finds nothing, one pull request per table), median of 50:"
        )
        let exactCycle = try await cycle(exact.engine)
        let lookbackCycle = try await cycle(lookback.engine)
        print(
            String(
                format: "exact: %.2f ms   lookback-50: %.2f ms (re-reading and re-applying the window every poll)", exactCycle * 1e3,
                lookbackCycle * 1e3))
        return [
            Figure("sync.idle_poll_rows_exact", Double(exactRows), aim: 0, digits: 0),
            Figure("sync.idle_cycle_ms_exact", exactCycle * 1e3, aim: nil),
            Figure("sync.idle_cycle_ms_lookback", lookbackCycle * 1e3, aim: nil),
        ]
    }

    /// A device that pulled every table from the start (in this process), its pull ordering `ordering`.
    static func syncedDevice(
        _ database: BenchDatabase, ordering: PullOrdering, directory: URL
    ) async throws -> (store: SyncStore, engine: SyncEngine) {
        let tables = GeneratedSchema.tables.map {
            TableSchema(
                name: $0.name, columns: $0.columns, primaryKey: $0.primaryKey, conflict: $0.conflict, ordering: ordering,
                openRowRule: $0.openRowRule)
        }
        let store = try SyncStore(
            path: Scratch.databasePath("bench-idle", in: directory),
            schema: AppSchema(tables: tables, migrations: GeneratedSchema.migrations),
            userID: InitialSync.user, deviceID: "idle")
        let engine = SyncEngine(store: store, transport: PostgresTransport(url: database.url)) { InitialSync.credentials }
        _ = try await engine.syncNow()
        return (store, engine)
    }

    /// One idle pull of `table` as the device sends it: the rows back, and the bytes of
    /// PostgREST's JSON body for the same rows.
    static func poll(_ table: TableSchema, after cursor: Int64, _ database: BenchDatabase) async throws -> (rows: Int, bytes: Int) {
        let transport = PostgresTransport(url: database.url)
        let page = try await transport.pull(table, after: cursor, limit: SyncConfiguration.serverRowCap, as: InitialSync.credentials)
        let columns = table.columnNames.map { "\"\($0)\"" }.joined(separator: ", ")
        let (owner, sequence) = (ReservedColumn.owner, ReservedColumn.serverSeq)
        let bytes = try database.integer(
            """
            select octet_length(coalesce(json_agg(t)::text, '[]')) from
              (select \(columns) from public.\(table.name) where \(owner) = $1 and \(sequence) > $2 order by \(sequence) limit $3) t
            """, [InitialSync.user.uuidString, String(cursor), String(SyncConfiguration.serverRowCap)])
        return (page.receivedCount, Int(bytes))
    }

    /// The median time of a sync pass that finds nothing to push or pull.
    static func cycle(_ engine: SyncEngine) async throws -> Double {
        _ = try await engine.syncNow()
        var times: [Double] = []
        for _ in 0..<50 {
            times.append(try await Measure.secondsAsync { _ = try await engine.syncNow() })
        }
        return Measure.median(times)
    }
}
