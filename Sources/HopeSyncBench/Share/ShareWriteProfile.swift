import Foundation
import HopeSync
@_spi(Transport) import HopeSyncPostgres

/// Where a pushed row's server time goes, for the figures' reader: each trigger and helper
/// function's own time (pg_stat_user_functions with `track_functions = all`) over one-row
/// upserts of new tasks, own and shared, and each one's plan (EXPLAIN ANALYZE: its triggers,
/// and how many of the policies' member checks ran). Printed, never a figure: these are wall times inside
/// the server, and the function timer itself adds to them.
enum ShareWriteProfile {
    static let requests = 1_000

    static func run(_ variants: [ShareWrites.Variant], writer: UUID, _ database: BenchDatabase) throws {
        let name = try database.admin.execute("select current_database()").scalar ?? ""
        try database.admin.execute("alter database \(name) set track_functions = 'all'")
        defer { _ = try? database.admin.execute("alter database \(name) reset track_functions") }
        // A new server process: it reads the database's settings when it starts.
        let client = try ClientConnection(url: database.url)
        print("\nWhere a new row's time goes: each function's own time (track_functions = all), µs a request, \(requests) one-row upserts")
        for variant in variants {
            _ = try database.admin.execute("select pg_stat_reset()")
            for _ in 0..<requests {
                let row = ShareWrites.newRow(UUID().uuidString.lowercased(), of: variant, writer: writer)
                try client.send(try PostgresStatement.upsert([row], into: variant.table), as: writer, announcingPokes: variant.announced)
            }
            // Statistics reach the shared tables when the process next goes idle, at most once
            // a second unless forced.
            _ = try client.connection.execute("select pg_stat_force_next_flush()")
            _ = try client.connection.execute("select 1")
            _ = try database.admin.execute("select pg_stat_clear_snapshot()")
            let functions = try database.admin.execute(
                """
                select schemaname || '.' || funcname, calls, self_time, total_time from pg_stat_user_functions
                where calls > 0 order by self_time desc
                """)
            print("\(variant.label): function                          calls/request  self µs  total µs")
            for row in functions.rows {
                let calls = Double(row[1] ?? "") ?? 0
                let (own, total) = ((Double(row[2] ?? "") ?? 0) * 1e3, (Double(row[3] ?? "") ?? 0) * 1e3)
                print(
                    "  " + (row[0] ?? "").padded(44)
                        + String(format: "%10.2f  %7.1f  %8.1f", calls / Double(requests), own / Double(requests), total / Double(requests))
                )
            }
        }
        // Each variant's plan: its triggers' times and how many of the policies' member checks
        // (InitPlans over sync_scope_access) ran.
        for variant in variants {
            let row = ShareWrites.newRow(UUID().uuidString.lowercased(), of: variant, writer: writer)
            let statement = try PostgresStatement.upsert([row], into: variant.table)
            let plan = try client.query(
                "explain (analyze, costs off) " + statement.sql, statement.parameters, as: writer, announcingPokes: variant.announced
            ).rows.compactMap { $0[0] }
            let checks = plan.filter { $0.contains("Bitmap Heap Scan on sync_scope_access") && !$0.contains("never executed") }.count
            print("\nOne \(variant.label) upsert, EXPLAIN ANALYZE as the writer (member checks run: \(checks)):")
            for line in plan where line.contains("Trigger ") || line.contains(" Time:") {
                print("  " + line.trimmingCharacters(in: .whitespaces))
            }
        }
    }
}
