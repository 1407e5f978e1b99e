import Foundation
import HopeSync
import HopeSyncModel
import HopeSyncTestSupport

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

/// A row write the server acknowledged: what the check looks for on the server at the end.
struct Acknowledged: Sendable {
    let device: String
    /// The push or guarded update that carried it: its table, user and times.
    let request: WatchedRequest
    let values: ColumnValues
    /// The columns this write asked the server to take.
    let claimed: [String]
    /// False for a version table's row an upsert's answer left out: the server kept its copy
    /// (the runtime then lists what it sent on the device's rejected list).
    var taken = true

    var id: String { request.id?.uuidString.lowercased() ?? values[ReservedColumn.id]?.text ?? "" }
    var table: String { request.table.name }
    var user: UUID { request.user.userID }
    var guarded: Bool { request.kind == .guardedUpdate }
    var sent: UInt64 { request.start }
    var acked: UInt64 { request.end }
}

/// What every device's requests met, by phase: latencies, rows, errors, acknowledged writes.
final class FleetLog: Sendable {
    enum Phase: String, Sendable {
        case baseline = "alone"
        case fleet
        case drain
        case idle
        /// Idle again, the same devices pulling table by table (the protocol before sync_pull).
        case idleTables = "idle-tables"
        /// Idle again through sync_pull, a Realtime channel joined (polls at the slower interval).
        case idlePoked = "idle-poked"
        case stopping
    }

    private struct State {
        var phase = Phase.baseline
        var latencies: [Phase: [RequestKind: [Double]]] = [:]
        var rows: [Phase: (pushed: Int, pulled: Int)] = [:]
        var errors: [String: Int] = [:]
        var acknowledged: [Acknowledged] = []
        var pullsByDevice: [Phase: [String: Int]] = [:]
    }

    private let state = Locked(State())

    var phase: Phase {
        get { state.value.phase }
        set { state.withLock { $0.phase = newValue } }
    }

    /// One device's request, as its ``WatchedTransport`` saw it come back.
    func record(_ request: WatchedRequest, device: String) {
        let kind: RequestKind =
            switch request.kind {
            case .upsert: .push
            case .pull, .pullTables: .pull
            case .guardedUpdate: .guarded
            case .fetch: .fetch
            }
        let rows: Int
        switch request.outcome {
        case .failure(let error):
            state.withLock { state in
                let key = "\(state.phase.rawValue) \(kind.rawValue) \(error.code) \(error.serverError?.code ?? "")"
                state.errors[key.trimmingCharacters(in: .whitespaces), default: 0] += 1
            }
            return
        case .success(let count): rows = count
        }
        var kinds = [kind]
        var counts = (pushed: 0, pulled: 0)
        var acknowledged: [Acknowledged] = []
        switch request.kind {
        case .upsert:
            counts.pushed = request.sent.count
            let registers = request.table.stampedColumns.map(\.name)
            acknowledged = request.sent.map { row in
                // A column-merge push claims only the columns it stamped.
                let stamps = row[ReservedColumn.columnStamps]?.text.flatMap(ColumnStamps.init(json:))
                let id = row[request.table.primaryKey]?.text ?? ""
                return Acknowledged(
                    device: device, request: request, values: row,
                    claimed: stamps.map { stamps in registers.filter { stamps[$0] != nil } } ?? registers,
                    taken: request.table.conflict.versionColumn == nil || request.answered.contains(id))
            }
        case .pull, .pullTables:
            kinds.append(rows == 0 ? .idlePull : .pullWithRows)
            counts.pulled = rows
        case .guardedUpdate where rows > 0:
            acknowledged = request.sent.map { values in
                Acknowledged(device: device, request: request, values: values, claimed: values.columns)
            }
        default: break
        }
        state.withLock { state in
            let phase = state.phase
            for kind in kinds { state.latencies[phase, default: [:]][kind, default: []].append(request.seconds) }
            state.rows[phase, default: (0, 0)].pushed += counts.pushed
            state.rows[phase, default: (0, 0)].pulled += counts.pulled
            if kind == .pull { state.pullsByDevice[phase, default: [:]][device, default: 0] += 1 }
            state.acknowledged += acknowledged
        }
    }

    /// Pull requests per device in `phase`, fewest to most.
    func pullsPerDevice(_ phase: Phase) -> [Int] { (state.value.pullsByDevice[phase] ?? [:]).values.sorted() }
    func latencies(_ phase: Phase) -> [RequestKind: Latencies] { (state.value.latencies[phase] ?? [:]).mapValues(Latencies.init) }
    func rowCounts(_ phase: Phase) -> (pushed: Int, pulled: Int) { state.value.rows[phase] ?? (0, 0) }
    func errors() -> [(key: String, value: Int)] { state.value.errors.sorted { $0.key < $1.key } }
    func acknowledged() -> [Acknowledged] { state.value.acknowledged }
}
