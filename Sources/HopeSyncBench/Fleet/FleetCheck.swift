import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncModel
@_spi(Transport) import HopeSyncPostgres

extension FleetBenchmark {
    /// Whether every acknowledged write is on the server (or lost only to a newer write of the
    /// same column), and whether every device holds exactly its user's server rows.
    struct Check {
        var acked = (rows: 0, columns: 0, lostToNewer: 0, lostToLaterWrite: 0, lostOtherwise: 0, missingRows: 0, notTaken: 0)
        var lost: [String] = []
        var devices = (count: 0, converged: 0, mismatchedRows: 0)
        var left = (dirty: 0, pending: 0, rejected: 0, conflicted: 0)
        /// Parked writes dismissed before the devices were compared, their devices, and the
        /// devices where a parked row held more than the version it was parked at.
        var dismissed = (writes: 0, devices: 0, differing: Set<String>())
        var divergences: [String] = []
        var rejected: [String] = []
        /// The messages of the entries left on the devices' conflicted and rejected lists.
        var listMessages: [String: Int] = [:]
        /// The shared lists' part, with FLEET_SCOPES.
        var shared: SharedCheck?

        /// Writes lost for no newer write, and rows missing.
        var lostWrites: Int { acked.lostOtherwise + acked.missingRows }

        mutating func fail(_ message: String, missingRow: Bool = false) {
            if missingRow { acked.missingRows += 1 } else { acked.lostOtherwise += 1 }
            if lost.count < 10 { lost.append(message) }
        }

        func print() {
            let acknowledged = lostWrites == 0
            let converged = devices.converged == devices.count && left.dirty == 0 && left.pending == 0
            Swift.print(
                """

                CHECK acknowledged writes: \(acknowledged ? "ok" : "FAILED") — \(acked.rows) acknowledged row writes, \(acked.columns) column values compared;
                  \(acked.lostToNewer) overwritten by a newer (updated_ms, device_id) of the same column (lww), \(acked.lostToLaterWrite) by a write acknowledged later (version tables),
                  \(acked.missingRows) rows missing on the server, \(acked.lostOtherwise) values lost otherwise;
                  \(acked.notTaken) rows of version tables an upsert's answer left out (the server kept its copy), each on its device's rejected list
                CHECK convergence: \(converged ? "ok" : "FAILED") — \(devices.converged) of \(devices.count) devices hold exactly their user's server rows (every column);
                  \(devices.mismatchedRows) rows differ; left dirty \(left.dirty), queued \(left.pending), rejected list \(left.rejected), conflicted list \(left.conflicted)
                  (the \(dismissed.writes) parked writes, on \(dismissed.devices) devices, dismissed as a user would and one pass on each of those devices before this comparison;
                  \(dismissed.differing.count) devices held a parked row differing from the server's in more than the version it was parked at)
                """)
            for failure in lost { Swift.print("  lost: \(failure)") }
            for divergence in divergences { Swift.print("  differs: \(divergence)") }
            for example in rejected { Swift.print("  rejected: \(example)") }
            for (message, count) in listMessages.sorted(by: { $0.key < $1.key }) { Swift.print("  x\(count) \(message)") }
            shared?.print()
        }
    }

    static func verify(_ devices: [Device], log: FleetLog, database: BenchDatabase, shared: SharedWrites? = nil) async throws -> Check {
        let reader = PostgresTransport(url: database.url)
        var serverRows: [UUID: [String: [String: ColumnValues]]] = [:]
        for user in Set(devices.map(\.user)) {
            for table in GeneratedSchema.tables {
                let rows = try await reader.pullAll(table, as: Credentials(userID: user, accessToken: "")).flatMap(\.rows)
                serverRows[user, default: [:]][table.name] = Dictionary(rows.map { (key($0), $0) }) { first, _ in first }
            }
        }
        let lists = try await readLists(devices)
        let refused = refusedUpserts(lists)
        var check = Check()
        checkAcknowledged(log.acknowledged(), against: serverRows, refused: refused, into: &check)
        note(lists, into: &check)
        check.dismissed = try await dismissParked(devices, lists, serverRows: serverRows)
        for device in devices {
            try await checkDevice(device, against: serverRows[device.user] ?? [:], into: &check)
        }
        if let shared {
            check.shared = try await verifyShared(
                devices, shared: shared, acks: log.acknowledged(), serverRows: serverRows, lists: lists,
                differing: check.dismissed.differing, database: database)
        }
        return check
    }

    /// Every acknowledged column value is the server's, or the server's is newer (its stamp, or
    /// on a version table a write acknowledged after this one was sent). A version table's row an
    /// upsert's answer left out was not taken: it must be on its device's rejected list
    /// (`refused`: "device table id"), or be checked as if taken.
    static func checkAcknowledged(
        _ acks: [Acknowledged], against serverRows: [UUID: [String: [String: ColumnValues]]], refused: Set<String>,
        into check: inout Check
    ) {
        check.acked.rows = acks.count
        let byRow = Dictionary(grouping: acks) { "\($0.table)/\($0.id)" }
        let tables = Dictionary(uniqueKeysWithValues: GeneratedSchema.tables.map { ($0.name, $0) })
        func stamps(_ values: ColumnValues) -> ColumnStamps? { values[ReservedColumn.columnStamps]?.text.flatMap(ColumnStamps.init(json:)) }
        func pair(_ values: ColumnValues) -> WriteStamp? {
            guard let ms = values[ReservedColumn.updatedMs]?.int, let device = values[ReservedColumn.deviceId]?.text else { return nil }
            return WriteStamp(ms: ms, deviceID: device)
        }
        for ack in acks {
            guard let table = tables[ack.table] else { continue }
            if !ack.taken, refused.contains("\(ack.device) \(ack.table) \(ack.id)") {
                check.acked.notTaken += 1
                continue
            }
            guard let row = serverRows[ack.user]?[ack.table]?[ack.id] else {
                check.fail("\(ack.table) \(ack.id) from \(ack.device): no such row on the server", missingRow: true)
                continue
            }
            let (sent, held) = (stamps(ack.values), stamps(row))
            for column in ack.claimed {
                let stamp = sent?[column] ?? pair(ack.values)
                if table.conflict == .lww, stamp == nil { continue }
                check.acked.columns += 1
                if row[column] == ack.values[column] { continue }
                let what = "\(ack.table).\(column) of \(ack.id) from \(ack.device)"
                let values = "sent \(describe(ack.values[column])), server \(describe(row[column]))"
                if table.conflict == .lww {
                    if let stamp, let current = held?[column] ?? pair(row), current > stamp {
                        check.acked.lostToNewer += 1
                    } else {
                        check.fail("\(what) at \(describe(stamp)): \(values) at \(describe(held?[column]))")
                    }
                } else if byRow["\(ack.table)/\(ack.id)"]?.contains(where: { other in
                    other.taken && other.acked != ack.acked && other.acked > ack.sent && other.claimed.contains(column)
                        && other.values[column] != ack.values[column]
                }) == true {
                    check.acked.lostToLaterWrite += 1
                } else {
                    check.fail("\(what) (\(ack.guarded ? "guarded update" : "upsert")): \(values)")
                }
            }
        }
    }

    /// The device holds exactly its user's server rows, with nothing left to send.
    static func checkDevice(_ device: Device, against serverRows: [String: [String: ColumnValues]], into check: inout Check) async throws {
        check.devices.count += 1
        var same = true
        for table in GeneratedSchema.tables {
            let local = try await device.store.read { reader in try reader.rowValues(of: table.name) }
            let mine = Dictionary(local.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
            let theirs = serverRows[table.name] ?? [:]
            for id in Set(mine.keys).union(theirs.keys) where mine[id] != theirs[id] {
                same = false
                check.devices.mismatchedRows += 1
                guard check.divergences.count < 10 else { continue }
                let columns = table.columnNames.filter { mine[id]?[$0] != theirs[id]?[$0] }
                check.divergences.append(
                    "\(device.name) \(table.name) \(id): "
                        + columns.map { "\($0) device \(describe(mine[id]?[$0])) server \(describe(theirs[id]?[$0]))" }.joined(
                            separator: ", "))
            }
        }
        if same && !check.dismissed.differing.contains(device.name) { check.devices.converged += 1 }
        let (dirty, pending) = try await device.store.read { reader in (try reader.dirtyCount(), try reader.pendingMutations().count) }
        check.left.dirty += dirty
        check.left.pending += pending
    }

    static func key(_ row: ColumnValues) -> String { row[ReservedColumn.id]?.text ?? "" }

    static func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return String(describing: value)
    }
}
