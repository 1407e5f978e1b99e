import Foundation
import HopeSchema
import Postgres
import PostgresCluster
import SyncPostgres
import SyncRuntime
import SyncTestSupport

// MARK: Requests

enum RequestKind: String, CaseIterable, Sendable {
    case push, pull, idlePull, pullWithRows, guarded, fetch

    var label: String {
        switch self {
        case .push: "push (upsert)"
        case .pull: "pull (every)"
        case .idlePull: "  pull (idle)"
        case .pullWithRows: "  pull (with rows)"
        case .guarded: "guarded update"
        case .fetch: "fetch by key"
        }
    }
}

struct LatencyStats {
    let count: Int
    let p50: Double
    let p99: Double
    let max: Double

    init(samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func at(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[Int((q * Double(sorted.count - 1)).rounded())] }
        p50 = at(0.5)
        p99 = at(0.99)
        max = sorted.last ?? 0
    }
}

struct Acknowledged: Sendable {
    let device: String
    let user: UUID
    let table: String
    let id: String
    let values: ColumnValues
    /// The columns this write asked the server to take.
    let claimed: [String]
    let guarded: Bool
    let sent: UInt64
    let acked: UInt64
}

/// What every device's requests met, by phase: latencies, rows, errors, acknowledged writes.
final class FleetLog: @unchecked Sendable {
    enum Phase: String, Sendable {
        case baseline = "alone"
        case fleet
        case drain
        case idle
        case stopping
    }

    private let lock = NSLock()
    private var current = Phase.baseline
    private var latencies: [Phase: [RequestKind: [Double]]] = [:]
    private var rows: [Phase: (pushed: Int, pulled: Int)] = [:]
    private var errorCounts: [String: Int] = [:]
    private var acks: [Acknowledged] = []
    private var pullsByDevice: [Phase: [String: Int]] = [:]

    var phase: Phase {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    func request(_ kinds: [RequestKind], since start: UInt64, pushed: Int = 0, pulled: Int = 0) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        lock.withLock {
            for kind in kinds { latencies[current, default: [:]][kind, default: []].append(seconds) }
            rows[current, default: (0, 0)].pushed += pushed
            rows[current, default: (0, 0)].pulled += pulled
        }
    }

    func pulled(by device: String) {
        lock.withLock { pullsByDevice[current, default: [:]][device, default: 0] += 1 }
    }

    /// Pull requests per device in `phase`, fewest to most.
    func pullsPerDevice(_ phase: Phase) -> [Int] { lock.withLock { (pullsByDevice[phase] ?? [:]).values.sorted() } }

    func failed(_ kind: RequestKind, _ error: SyncError) {
        lock.withLock {
            let key = "\(current.rawValue) \(kind.rawValue) \(error.code) \(error.serverError?.code ?? "")"
            errorCounts[key.trimmingCharacters(in: .whitespaces), default: 0] += 1
        }
    }

    func acknowledge(_ writes: [Acknowledged]) {
        lock.withLock { acks += writes }
    }

    func stats(_ phase: Phase) -> [RequestKind: LatencyStats] {
        lock.withLock { (latencies[phase] ?? [:]).mapValues(LatencyStats.init) }
    }

    func rowCounts(_ phase: Phase) -> (pushed: Int, pulled: Int) { lock.withLock { rows[phase] ?? (0, 0) } }
    func errors() -> [(key: String, value: Int)] { lock.withLock { errorCounts.sorted { $0.key < $1.key } } }
    func acknowledged() -> [Acknowledged] { lock.withLock { acks } }
}

/// One device's view of the shared transport: times every request, counts its errors by code,
/// and records what each push and guarded update got acknowledged.
struct FleetTransport: SyncTransport {
    let base: PostgresTransport
    let log: FleetLog
    let device: String

    @discardableResult
    func upsert(_ rows: [ColumnValues], into table: TableSchema, as user: Credentials) async throws(SyncError) -> UpsertedRows {
        let start = DispatchTime.now().uptimeNanoseconds
        let answer: UpsertedRows
        do throws(SyncError) {
            answer = try await base.upsert(rows, into: table, as: user)
        } catch {
            log.failed(.push, error)
            throw error
        }
        let acked = DispatchTime.now().uptimeNanoseconds
        log.request([.push], since: start, pushed: rows.count)
        let claimed = table.columns.filter { $0.role == .user || $0.role == .deletedMs }.map(\.name)
        log.acknowledge(
            rows.map { row in
                let stamped = row["column_stamps"]?.text.flatMap(ColumnStamps.init(json:)).map { stamps in
                    claimed.filter { stamps[$0] != nil }
                }
                return Acknowledged(
                    device: device, user: user.userID, table: table.name, id: row["id"]?.text ?? "", values: row,
                    claimed: stamped ?? claimed,
                    guarded: false, sent: start, acked: acked)
            })
        return answer
    }

    func pull(_ table: TableSchema, after cursor: Int64, limit: Int, as user: Credentials) async throws(SyncError) -> PulledPage {
        let start = DispatchTime.now().uptimeNanoseconds
        do throws(SyncError) {
            let page = try await base.pull(table, after: cursor, limit: limit, as: user)
            log.request([.pull, page.receivedCount == 0 ? .idlePull : .pullWithRows], since: start, pulled: page.receivedCount)
            log.pulled(by: device)
            return page
        } catch {
            log.failed(.pull, error)
            throw error
        }
    }

    func guardedUpdate(
        _ table: TableSchema, id: UUID, baseVersion: String, set values: ColumnValues,
        extraFilters: [Filter], returning: [String], as user: Credentials
    ) async throws(SyncError) -> [ColumnValues] {
        let start = DispatchTime.now().uptimeNanoseconds
        do throws(SyncError) {
            let answer = try await base.guardedUpdate(
                table, id: id, baseVersion: baseVersion, set: values, extraFilters: extraFilters, returning: returning, as: user)
            let acked = DispatchTime.now().uptimeNanoseconds
            log.request([.guarded], since: start)
            if !answer.isEmpty {
                log.acknowledge([
                    Acknowledged(
                        device: device, user: user.userID, table: table.name, id: id.uuidString.lowercased(), values: values,
                        claimed: values.columns, guarded: true, sent: start, acked: acked)
                ])
            }
            return answer
        } catch {
            log.failed(.guarded, error)
            throw error
        }
    }

    func fetch(_ table: TableSchema, ids: [UUID], columns: [String], as user: Credentials) async throws(SyncError) -> [ColumnValues] {
        let start = DispatchTime.now().uptimeNanoseconds
        do throws(SyncError) {
            let row = try await base.fetch(table, ids: ids, columns: columns, as: user)
            log.request([.fetch], since: start)
            return row
        } catch {
            log.failed(.fetch, error)
            throw error
        }
    }
}

extension Duration {
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
