import Foundation
import HopeSchema
import Postgres
import PostgresCluster
import SyncPostgres
import SyncRuntime
import SyncTestSupport

extension FleetBenchmark {
    // MARK: The check

    struct Check {
        var ackedRows = 0
        var checkedColumns = 0
        var lostToNewer = 0
        var lostToLaterWrite = 0
        var failures: [String] = []
        var failureCount = 0
        var missingRows = 0
        var devicesConverged = 0
        var devices = 0
        var mismatchedRows = 0
        var divergences: [String] = []
        var dirty = 0
        var pending = 0
        var rejected = 0
        var conflicted = 0
        var rejectedExamples: [String] = []

        mutating func fail(_ message: String) {
            failureCount += 1
            if failures.count < 10 { failures.append(message) }
        }

        func print() {
            let acknowledged = failureCount == 0 && missingRows == 0
            let converged = devicesConverged == devices && dirty == 0 && pending == 0
            Swift.print(
                """

                CHECK acknowledged writes: \(acknowledged ? "ok" : "FAILED") — \(ackedRows) acknowledged row writes, \(checkedColumns) column values compared;
                  \(lostToNewer) overwritten by a newer (updated_ms, device_id) of the same column (lww), \(lostToLaterWrite) by a write acknowledged later (version tables),
                  \(missingRows) rows missing on the server, \(failureCount) values lost otherwise
                CHECK convergence: \(converged ? "ok" : "FAILED") — \(devicesConverged) of \(devices) devices hold exactly their user's server rows (every column);
                  \(mismatchedRows) rows differ; left dirty \(dirty), queued \(pending), rejected list \(rejected), conflicted list \(conflicted)
                """)
            for failure in failures { Swift.print("  lost: \(failure)") }
            for divergence in divergences { Swift.print("  differs: \(divergence)") }
            for example in rejectedExamples { Swift.print("  rejected: \(example)") }
        }
    }

    static func verify(_ devices: [Device], log: FleetLog, server: SyncBenchmark.Server) async throws -> Check {
        let reader = PostgresTransport(url: server.url)
        var serverRows: [UUID: [String: [String: ColumnValues]]] = [:]
        for user in Set(devices.map(\.user)) {
            for table in GeneratedSchema.tables {
                var rows: [String: ColumnValues] = [:]
                var cursor: Int64 = 0
                while true {
                    let page = try await reader.pull(
                        table, after: cursor, limit: SyncConfiguration.serverRowCap, as: Credentials(userID: user, accessToken: ""))
                    for row in page.rows { rows[row["id"]?.text ?? ""] = row }
                    guard page.receivedCount == SyncConfiguration.serverRowCap, let last = page.lastServerSeq else { break }
                    cursor = last
                }
                serverRows[user, default: [:]][table.name] = rows
            }
        }
        var check = Check()
        let acks = log.acknowledged()
        check.ackedRows = acks.count
        let byRow = Dictionary(grouping: acks) { "\($0.table)/\($0.id)" }
        let tables = Dictionary(uniqueKeysWithValues: GeneratedSchema.tables.map { ($0.name, $0) })
        for ack in acks {
            guard let table = tables[ack.table] else { continue }
            guard let row = serverRows[ack.user]?[ack.table]?[ack.id] else {
                check.missingRows += 1
                check.fail("\(ack.table) \(ack.id) from \(ack.device): no such row on the server")
                continue
            }
            if table.conflict == .lww {
                let sent = ack.values["column_stamps"]?.text.flatMap(ColumnStamps.init(json:))
                let held = row["column_stamps"]?.text.flatMap(ColumnStamps.init(json:))
                let pair = { (values: ColumnValues) -> WriteStamp? in
                    guard let ms = values["updated_ms"]?.int, let device = values["device_id"]?.text else { return nil }
                    return WriteStamp(ms: ms, deviceID: device)
                }
                for column in ack.claimed {
                    guard let stamp = sent?[column] ?? pair(ack.values) else { continue }
                    check.checkedColumns += 1
                    if row[column] == ack.values[column] { continue }
                    if let current = held?[column] ?? pair(row), current > stamp {
                        check.lostToNewer += 1
                    } else {
                        check.fail(
                            "\(ack.table).\(column) of \(ack.id) from \(ack.device) at \(stamp): sent \(describe(ack.values[column])), server \(describe(row[column])) at \(describe(held?[column]))"
                        )
                    }
                }
            } else {
                for column in ack.claimed {
                    check.checkedColumns += 1
                    if row[column] == ack.values[column] { continue }
                    let later = byRow["\(ack.table)/\(ack.id)"]?.contains { other in
                        other.acked != ack.acked && other.acked > ack.sent && other.claimed.contains(column)
                            && other.values[column] != ack.values[column]
                    }
                    if later == true {
                        check.lostToLaterWrite += 1
                    } else {
                        check.fail(
                            "\(ack.table).\(column) of \(ack.id) from \(ack.device) (\(ack.guarded ? "guarded update" : "upsert")): sent \(describe(ack.values[column])), server \(describe(row[column]))"
                        )
                    }
                }
            }
        }

        check.devices = devices.count
        for device in devices {
            var same = true
            for table in GeneratedSchema.tables {
                let local = try await device.store.read { reader in try reader.rowValues(of: table.name) }
                let mine = Dictionary(local.map { ($0["id"]?.text ?? "", $0) }, uniquingKeysWith: { first, _ in first })
                let theirs = serverRows[device.user]?[table.name] ?? [:]
                for id in Set(mine.keys).union(theirs.keys) where mine[id] != theirs[id] {
                    same = false
                    check.mismatchedRows += 1
                    if check.divergences.count < 10 {
                        let columns = table.columnNames.filter { mine[id]?[$0] != theirs[id]?[$0] }
                        check.divergences.append(
                            "\(device.name) \(table.name) \(id): "
                                + columns.map { "\($0) device \(describe(mine[id]?[$0])) server \(describe(theirs[id]?[$0]))" }.joined(
                                    separator: ", "))
                    }
                }
            }
            if same { check.devicesConverged += 1 }
            let lists = try await device.store.read { reader in
                (
                    try reader.dirtyCount(), try reader.pendingMutations().count, try reader.rejectedMutations(),
                    try reader.conflictedMutations().count
                )
            }
            check.dirty += lists.0
            check.pending += lists.1
            check.rejected += lists.2.count
            check.conflicted += lists.3
            for rejected in lists.2 where check.rejectedExamples.count < 5 {
                check.rejectedExamples.append(
                    "\(device.name) \(rejected.table) \(rejected.rowID): \(String(describing: rejected.serverError))")
            }
        }
        return check
    }

    /// Pushes of N users wait on their owners' locks (held by another session) while
    /// an unrelated user pulls through the same transport: does the pull get through? It does
    /// while N < pool; at N = pool every connection waits on a lock and the pull waits too.
    static func waitingPushesProbe(_ server: SyncBenchmark.Server, pool: Int) async throws -> String {
        var results: [String] = []
        for waiting in Array(Set([1, pool / 2, pool - 1, pool])).sorted() where waiting > 0 {
            let transport = PostgresTransport(configuration: .init(url: server.url, maximumConnections: pool))
            let holder = try Connection(url: server.url)
            let owners = (0..<waiting).map { user($0) }
            for owner in owners {
                _ = try holder.execute(
                    "select pg_advisory_lock(1752134757, hashtext($1))", [owner.uuidString.lowercased()])
            }
            let pushes = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for owner in owners {
                        group.addTask {
                            let row = activityRow(
                                id: UUID().uuidString.lowercased(), user: owner, ms: Int64(Date().timeIntervalSince1970 * 1000))
                            try await transport.upsert([row], into: Activity.table, as: Credentials(userID: owner, accessToken: ""))
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Every push waiting (or 3 s gone), then the locks go 1 s later whatever the pull is doing.
            let observer = try Connection(url: server.url)
            var blocked = 0
            for _ in 0..<300 where blocked < waiting {
                try await Task.sleep(for: .milliseconds(10))
                blocked =
                    Int(
                        try observer.execute(
                            "select count(*) from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'advisory'"
                        )
                        .scalar ?? "") ?? 0
            }
            let released = DispatchSemaphore(value: 0)
            let due = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
            let late = Locked(0.0)
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                late.value = Double(DispatchTime.now().uptimeNanoseconds - due) / 1e6
                _ = try? holder.execute("select pg_advisory_unlock_all()")
                released.signal()
            }
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await transport.pull(Activity.table, after: 0, limit: 1, as: Credentials(userID: user(49), accessToken: ""))
            let pulled = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            try await pushes.value
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    released.wait()
                    continuation.resume()
                }
            }
            results.append(
                "\(waiting) pushing (\(blocked) waiting): \(Measure.format(pulled, digits: 1)) ms"
                    + " (the release, on DispatchQueue.global(), ran \(Measure.format(late.value, digits: 0)) ms late)")
        }
        return "a pull of another user while N pushes wait on their owners' locks (released 1 s later), same transport, pool of \(pool): "
            + results.joined(separator: ", ")
    }

    /// How many sequence numbers one upsert takes: of a new row, of an update that wins a
    /// column, and of a repeat that wins nothing (the trigger also runs for the proposed row of
    /// an upsert that turns into an update).
    static func sequenceProbe(_ server: SyncBenchmark.Server, user: UUID) async throws -> (new: Int64, winning: Int64, losing: Int64) {
        let transport = PostgresTransport(url: server.url)
        let credentials = Credentials(userID: user, accessToken: "")
        let table = Activity.table
        let id = UUID().uuidString.lowercased()
        let ms = Int64(Date().timeIntervalSince1970 * 1000)
        func row(_ ms: Int64) -> ColumnValues { activityRow(id: id, user: user, ms: ms) }
        func taken(_ values: ColumnValues) async throws -> Int64 {
            let before = Int64(try server.admin.execute("select last_value from public.sync_server_seq").scalar ?? "") ?? 0
            try await transport.upsert([values], into: table, as: credentials)
            return (Int64(try server.admin.execute("select last_value from public.sync_server_seq").scalar ?? "") ?? 0) - before
        }
        let new = try await taken(row(ms))
        let winning = try await taken(row(ms + 1))
        let losing = try await taken(row(ms + 1))
        return (new, winning, losing)
    }

    /// An activity as a device pushes it: every column but server_seq, each stamped at `ms`.
    static func activityRow(id: String, user: UUID, ms: Int64) -> ColumnValues {
        let stamp = WriteStamp(ms: ms, deviceID: "probe")
        let stamps = ColumnStamps(
            Dictionary(uniqueKeysWithValues: ["name", "color", "archived", "sort_order", "metadata", "deleted_ms"].map { ($0, stamp) }))
        let values: [String: SyncValue] = [
            "id": .text(id), "user_id": .text(user.uuidString.lowercased()), "name": .text("probe \(ms)"), "color": .text("#000000"),
            "archived": .bool(false), "sort_order": .double(0), "metadata": .null, "updated_ms": .int(ms), "deleted_ms": .null,
            "device_id": .text("probe"), "column_stamps": .text(stamps.json),
        ]
        let columns = Activity.table.columnNames.filter { $0 != "server_seq" }
        return ColumnValues(columns: columns, values: columns.map { values[$0] ?? .null })
    }

    static func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return String(describing: value)
    }
}
